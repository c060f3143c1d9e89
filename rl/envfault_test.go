package rl_test

import (
	"context"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// The runtime's typed outcomes reach the trajectory: a panic or refused SQL
// in tool code is the environment's failure (env_error), not a format error;
// a tool error (a business rule) is neither.
func TestEnvFaultsAreNotFormatErrors(t *testing.T) {
	env := loadMini(t)
	run := func(calls ...rl.ToolCall) rl.Rollout {
		var out rltest.Collect
		if _, err := rl.Run(context.Background(), []*runtime.Env{env}, script{{ToolCalls: calls}},
			rl.Config{Group: 1, Tasks: "put-d"}, &out); err != nil {
			t.Fatal(err)
		}
		return out.All()[0]
	}
	r := run(call("1", "abuse", `{"mode":"panic"}`), call("2", "abuse", `{"mode":"attach"}`))
	if !r.EnvError || r.FormatError || r.RewardComponents["env_errors"] != 2 {
		t.Errorf("panic + refused SQL: env error %v, format error %v, components %v", r.EnvError, r.FormatError, r.RewardComponents)
	}
	r = run(call("1", "get", `{"key":"zz"}`))
	if r.EnvError || r.FormatError {
		t.Errorf("tool error: env error %v, format error %v", r.EnvError, r.FormatError)
	}
	r = run(call("1", "get", `{"key":5}`))
	if r.EnvError || !r.FormatError {
		t.Errorf("schema failure: env error %v, format error %v", r.EnvError, r.FormatError)
	}
}
