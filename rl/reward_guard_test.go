package rl

import (
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// TestGuardsEarnNothing: a guard that holds (nothing changed) is no credit
// for an agent that did nothing; it gated the runtime's reward but counted
// as a passed check in fraction (0.5), awm (0.1) and envfactory's state
// match (0.25 at alpha 0.5).
func TestGuardsEarnNothing(t *testing.T) {
	task := &envpkg.Task{ID: "t", Calls: []envpkg.Call{{Name: "get", Arguments: []byte(`{}`)}},
		Checks: []envpkg.Check{{Name: "nothing changed", Guard: true, SQL: "SELECT 1"}}, Answer: &envpkg.Answer{Value: "x", Match: "exact"}}
	nothing := runtime.Score{Reward: 0, Passed: 1, Total: 2, Checks: []runtime.CheckResult{{Name: "nothing changed", Passed: true, Guard: true}, {Name: "answer matches (exact)"}}}
	solved := runtime.Score{Reward: 1, Passed: 2, Total: 2, AllPassed: true, Checks: []runtime.CheckResult{{Name: "nothing changed", Passed: true, Guard: true}, {Name: "answer matches (exact)", Passed: true}}}
	for _, r := range []Reward{Binary{}, Fraction{}, AWM{}, EnvFactory{Alpha: 0.5}} {
		if got, _ := r.Score(RewardInput{Task: task, Score: nothing}); got != 0 {
			t.Errorf("%s: doing nothing scores %.2f", r.Name(), got)
		}
		if got, _ := r.Score(RewardInput{Task: task, Score: solved, Calls: task.Calls}); got != 1 {
			t.Errorf("%s: the solution scores %.2f", r.Name(), got)
		}
	}
}
