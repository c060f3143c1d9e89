package tasks_test

import (
	"context"
	"testing"

	"github.com/wasmenv/wasmenv/envtest"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
)

// TestDoingNothingEarnsNothing: on a fresh from-db output the environment
// test has no note, and an agent that does nothing scores 0 under every
// reward rl offers (a separate "nothing else changed" check that held on
// the untouched state earned 0.5 under fraction and 0.1 under awm).
func TestDoingNothingEarnsNothing(t *testing.T) {
	res := fromDB(t, shopDB(t), synth.Options{Tasks: 60})
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ctx := context.Background()
	rep, err := envtest.Run(ctx, env, envtest.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Tasks {
		if len(tr.Problems) > 0 || len(tr.Notes) > 0 {
			t.Errorf("envtest: task %s: problems %v, notes %q", tr.ID, tr.Problems, tr.Notes)
		}
	}
	var rewards []rl.Reward
	for _, name := range rl.RewardNames {
		r, err := rl.ParseReward(name, rl.RewardOptions{EnvFactory: rl.EnvFactory{Alpha: 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		rewards = append(rewards, r)
	}
	writes := 0
	for i := range env.Bundle.Tasks {
		task := &env.Bundle.Tasks[i]
		if len(task.Checks) > 0 {
			writes++
		}
		ep, err := env.NewEpisode(task.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ep.Score(ctx, nil)
		ep.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rewards {
			if got, _ := r.Score(rl.RewardInput{Task: task, Score: s, MaxTurns: 10}); got != 0 {
				t.Errorf("task %s: doing nothing scores %.2f under reward %s", task.ID, got, r.Name())
			}
		}
	}
	if writes == 0 {
		t.Error("no write task")
	}
}
