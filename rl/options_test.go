package rl_test

import (
	"context"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// --drop-equal drops groups with no reward spread; --history-window writes
// one sample per assistant turn; --max-turns ends a rollout early.
func TestRunOptions(t *testing.T) {
	env := rltest.Load(t, "store")
	ctx := context.Background()
	envs := []*runtime.Env{env}

	var out rltest.Collect
	sum, err := rl.Run(ctx, envs, rl.Oracle{}, rl.Config{Group: 3, Tasks: "cancel-*", DropEqual: true}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Groups == 0 || sum.DroppedGroups != sum.Groups || len(out.Groups) != 0 {
		t.Fatalf("oracle groups (all rewards 1): %d, dropped %d, written %d", sum.Groups, sum.DroppedGroups, len(out.Groups))
	}

	out = rltest.Collect{}
	sum, err = rl.Run(ctx, envs, rl.Oracle{}, rl.Config{Group: 2, Tasks: "cancel-pending-order-mistake", HistoryWindow: 1}, &out)
	if err != nil {
		t.Fatal(err)
	}
	samples := out.All()
	if len(samples) != sum.Turns || sum.Turns != 2*4 {
		t.Fatalf("%d samples for %d turns", len(samples), sum.Turns)
	}
	for _, s := range samples {
		last := s.Messages[len(s.Messages)-1]
		if s.Window == nil || last.Role != rl.RoleAssistant || len(s.Messages) > 2+3 {
			t.Fatalf("sample %+v ends with %s, %d messages", s.Window, last.Role, len(s.Messages))
		}
	}

	out = rltest.Collect{}
	sum, err = rl.Run(ctx, envs, rl.Oracle{}, rl.Config{Group: 1, Tasks: "cancel-pending-order-mistake", MaxTurns: 2}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if r := out.All()[0]; r.Finish != rl.FinishMaxTurns || r.Turns != 2 || r.Reward != 0 {
		t.Fatalf("max turns 2: finish %s, %d turns, reward %g", r.Finish, r.Turns, r.Reward)
	}

	out = rltest.Collect{}
	sum, err = rl.Run(ctx, envs, rl.Oracle{}, rl.Config{Group: 1, Tasks: "cancel-pending-order-mistake, return-*"}, &out)
	if err != nil || sum.Groups != 1+3 {
		t.Fatalf("two patterns: %d groups, %v", sum.Groups, err)
	}
	if _, err := rl.Run(ctx, envs, rl.Oracle{}, rl.Config{Tasks: "nothing-*"}, &out); err == nil {
		t.Error("a pattern matching no task is accepted")
	}
	if _, err := rl.Run(ctx, envs, rl.Oracle{}, rl.Config{Tasks: "[", Group: 1}, &out); err == nil {
		t.Error("a bad pattern is accepted")
	}
}
