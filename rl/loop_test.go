package rl_test

import (
	"context"
	"math"
	"testing"

	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// The oracle scores 1.0 on every task of every example environment and the
// τ-bench retail port; random scores clearly lower on the same tasks; the
// advantages of every group sum to zero.
func TestOracleAndRandomOnExamples(t *testing.T) {
	names := envs.Names()
	if len(names) < 4 {
		t.Fatalf("examples: %v", names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			env := rltest.Load(t, name)
			ctx := context.Background()
			var oracle rltest.Collect
			sum, err := rl.Run(ctx, []*runtime.Env{env}, rl.Oracle{}, rl.Config{Group: 1, MaxTurns: 40}, &oracle)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Groups != len(env.Bundle.Tasks) || sum.Rollouts != len(env.Bundle.Tasks) {
				t.Fatalf("%d groups, %d rollouts for %d tasks", sum.Groups, sum.Rollouts, len(env.Bundle.Tasks))
			}
			for _, r := range oracle.All() {
				if r.Reward != 1 || r.FormatError || r.EnvError || r.Finish != rl.FinishStop {
					t.Errorf("oracle %s #%d: reward %.2f finish %s format %v env %v checks %+v",
						r.Task, r.Index, r.Reward, r.Finish, r.FormatError, r.EnvError, r.Checks)
				}
			}
			var random rltest.Collect
			group := 3
			if len(env.Bundle.Tasks) > 40 { // the τ-bench ports: many tasks, slow tools
				group = 2
			}
			sum, err = rl.Run(ctx, []*runtime.Env{env}, &rl.Random{}, rl.Config{Group: group, MaxTurns: 6}, &random)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Rollouts != group*len(env.Bundle.Tasks) {
				t.Fatalf("random: %d rollouts", sum.Rollouts)
			}
			// Tasks whose right answer changes nothing (τ-bench's refusals)
			// are solved by a random policy that breaks nothing, so the bar
			// is half the oracle's reward, not zero.
			if sum.MeanReward > 0.5 {
				t.Errorf("random mean reward %.3f: not clearly below the oracle's 1.0", sum.MeanReward)
			}
			if sum.EnvSteps == 0 {
				t.Error("random made no tool calls")
			}
			for _, g := range random.Groups {
				var s float64
				for _, r := range g {
					s += r.Advantage
				}
				if math.Abs(s) > 1e-9 {
					t.Errorf("group %s: advantages sum to %g", g[0].GroupID, s)
				}
			}
			t.Logf("%s: random mean reward %.3f, success %.2f, %d steps, format errors %d",
				name, sum.MeanReward, sum.SuccessRate(), sum.EnvSteps, sum.FormatErrors)
		})
	}
}
