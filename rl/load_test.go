package rl_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/cpuhog"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// Issue 35: a reward is a function of the trajectory, not of the machine's
// load. At 9d42a3d bundle SQL ran under a wall-clock limit, so on a busy
// machine a right trajectory's whole-table check ran past it and scored 0
// (331 of 1,760 oracle rollouts under eight busy loops). Here the limit is
// a tenth of a second, which a busy machine's scheduling alone exceeds:
// counted in work, it still lets every check finish, and every oracle
// rollout of a synthesized environment scores 1.0 with more busy threads
// than cores beside 256 rollouts in flight.
func TestRewardsDoNotDependOnLoad(t *testing.T) {
	b := rltest.Bundle(t, "northwind")
	env, err := runtime.LoadBundle(context.Background(), b, runtime.Options{SQLTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()

	defer cpuhog.Start()()

	var out rltest.Collect
	sum, err := rl.Run(context.Background(), []*runtime.Env{env}, rl.Oracle{}, rl.Config{Group: 4, MaxTurns: 40, Concurrency: 256}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rollouts != 4*len(b.Tasks) {
		t.Fatalf("%d rollouts for %d tasks", sum.Rollouts, len(b.Tasks))
	}
	for _, r := range out.All() {
		if r.Reward != 1 || r.EnvError {
			t.Errorf("oracle %s #%d under load: reward %.2f env error %v checks %+v", r.Task, r.Index, r.Reward, r.EnvError, r.Checks)
		}
	}
}

// A check that runs past its work limit is the environment's error: the
// rollout is flagged, left out of the advantages, and no check is scored
// as failed.
func TestCheckPastItsWorkLimitIsAnEnvError(t *testing.T) {
	b := *rltest.Bundle(t, "northwind")
	task := b.Tasks[0]
	task.Checks = append(append([]envpkg.Check(nil), task.Checks...), envpkg.Check{Name: "endless",
		SQL: "SELECT count(*) > 0 FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c)"})
	b.Tasks = []envpkg.Task{task}
	env, err := runtime.LoadBundle(context.Background(), &b, runtime.Options{SQLTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ep, err := env.NewEpisode(task.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	_, err = ep.Score(context.Background(), nil)
	var ce *runtime.CheckError
	if !errors.As(err, &ce) || ce.Check != "endless" || !errors.Is(err, runtime.ErrWorkLimit) {
		t.Fatalf("score: %v", err)
	}

	var out rltest.Collect
	sum, err := rl.Run(context.Background(), []*runtime.Env{env}, rl.Oracle{}, rl.Config{Group: 2, MaxTurns: 40}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.WithEnvError != 2 {
		t.Errorf("summary: %d rollouts with an env error, want 2", sum.WithEnvError)
	}
	for _, r := range out.All() {
		if !r.EnvError || r.Finish != rl.FinishEnvError || r.Advantage != 0 {
			t.Errorf("rollout #%d: env error %v finish %s advantage %v", r.Index, r.EnvError, r.Finish, r.Advantage)
		}
	}
}
