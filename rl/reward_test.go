package rl_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

func TestAdvantages(t *testing.T) {
	adv := rl.Advantages([]float64{1, 0, 0, 1}, false)
	want := []float64{0.5, -0.5, -0.5, 0.5}
	for i := range want {
		if adv[i] != want[i] {
			t.Fatalf("mean-centred: %v, want %v", adv, want)
		}
	}
	norm := rl.Advantages([]float64{1, 0, 0, 1}, true)
	std := math.Sqrt(1.0 / 3) // sample std of {.5,-.5,-.5,.5}
	if math.Abs(norm[0]-0.5/(std+1e-6)) > 1e-9 {
		t.Fatalf("normalised: %v", norm)
	}
	var s float64
	for _, a := range norm {
		s += a
	}
	if math.Abs(s) > 1e-12 {
		t.Fatalf("normalised advantages sum to %g", s)
	}
	for _, eq := range [][]float64{{1, 1, 1}, {0, 0}, {0.3}} {
		for _, n := range []bool{false, true} {
			for _, a := range rl.Advantages(eq, n) {
				if a != 0 {
					t.Fatalf("equal rewards %v (normalise %v): advantage %g, want 0", eq, n, a)
				}
			}
		}
	}
}

func score(passed, total int) runtime.Score {
	return runtime.Score{Passed: passed, Total: total, AllPassed: passed == total}
}

func TestRewards(t *testing.T) {
	call := func(name, args string) envpkg.Call { return envpkg.Call{Name: name, Arguments: json.RawMessage(args)} }
	task := &envpkg.Task{Calls: []envpkg.Call{call("a", `{"x":1,"y":"z"}`), call("b", `{}`)}}
	cases := []struct {
		reward rl.Reward
		in     rl.RewardInput
		want   float64
	}{
		{rl.Binary{}, rl.RewardInput{Score: score(3, 3)}, 1},
		{rl.Binary{}, rl.RewardInput{Score: score(2, 3)}, 0},
		{rl.Binary{}, rl.RewardInput{Score: score(0, 0)}, 0},
		{rl.Fraction{}, rl.RewardInput{Score: score(1, 4)}, 0.25},
		{rl.AWM{}, rl.RewardInput{Score: score(3, 3)}, 1},
		{rl.AWM{}, rl.RewardInput{Score: score(1, 3)}, 0.1},
		{rl.AWM{}, rl.RewardInput{Score: score(0, 3)}, 0},
		{rl.AWM{}, rl.RewardInput{Score: score(3, 3), FormatErrors: 1}, -1},
		// Same calls (key order and spacing do not matter), all checks: 1.
		{rl.EnvFactory{Alpha: 0.5, Length: 0.1, Format: 0.2},
			rl.RewardInput{Task: task, Score: score(2, 2), Calls: []envpkg.Call{call("a", `{"y": "z", "x": 1}`), call("b", `{}`)}}, 1},
		// Half the calls, half the checks, one extra call, one format error:
		// 0.5·(1/3) + 0.5·0.5 − 0.1 − 0.2 = 0.1333…
		{rl.EnvFactory{Alpha: 0.5, Length: 0.1, Format: 0.2},
			rl.RewardInput{Task: task, Score: score(1, 2), FormatErrors: 1,
				Calls: []envpkg.Call{call("c", `{}`), call("a", `{"x":1,"y":"z"}`), call("c", `{}`)}}, 0.5/3 + 0.25 - 0.3},
		// Clipped at 0.
		{rl.EnvFactory{Alpha: 0.5, Format: 1}, rl.RewardInput{Task: task, Score: score(0, 2), FormatErrors: 3}, 0},
	}
	for i, c := range cases {
		got, _ := c.reward.Score(c.in)
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("case %d (%s): %g, want %g", i, c.reward.Name(), got, c.want)
		}
	}
	if _, err := rl.ParseReward("nope", rl.RewardOptions{}); err == nil {
		t.Error("unknown reward accepted")
	}
	if _, err := rl.ParseReward("envfactory", rl.RewardOptions{EnvFactory: rl.EnvFactory{Alpha: 2}}); err == nil {
		t.Error("alpha 2 accepted")
	}
}

func TestSplitWindows(t *testing.T) {
	m := func(role, c string) rl.Message { return rl.Message{Role: role, Content: c} }
	r := &rl.Rollout{Reward: 1, Advantage: 0.5, Messages: []rl.Message{
		m("system", "rules"), m("user", "do it"),
		m("assistant", "a0"), m("tool", "t0"),
		m("assistant", "a1"), m("tool", "t1"),
		m("assistant", "a2"), m("tool", "t2"),
		m("assistant", "a3"),
	}, TurnTokens: []rl.TurnTokens{{Message: 6, CompletionTokenIDs: []int{1, 2}}}}
	got := rl.SplitWindows(r, 1)
	if len(got) != 4 {
		t.Fatalf("%d samples", len(got))
	}
	contents := func(s rl.Rollout) (out []string) {
		for _, m := range s.Messages {
			out = append(out, m.Content)
		}
		return
	}
	want := [][]string{
		{"rules", "do it", "a0"},
		{"rules", "do it", "a0", "t0", "a1"},
		{"rules", "do it", "a1", "t1", "a2"},
		{"rules", "do it", "a2", "t2", "a3"},
	}
	for i, s := range got {
		if c := contents(s); len(c) != len(want[i]) || c[len(c)-1] != want[i][len(want[i])-1] || c[2] != want[i][2] {
			t.Errorf("sample %d: %v, want %v", i, c, want[i])
		}
		if s.Window.Turn != i || s.Reward != 1 || s.Advantage != 0.5 {
			t.Errorf("sample %d: %+v", i, s.Window)
		}
	}
	if tt := got[2].TurnTokens; len(tt) != 1 || tt[0].Message != 4 || got[1].TurnTokens != nil {
		t.Errorf("turn tokens not carried to their sample: %+v / %+v", got[2].TurnTokens, got[1].TurnTokens)
	}
}

func TestWrapCall(t *testing.T) {
	direct := []envpkg.OpenAITool{{Type: "function", Function: envpkg.OpenAIFunction{Name: "get"}}}
	if c := rl.WrapCall(direct, "get", `{"k":1}`); c.Name != "get" || c.Arguments != `{"k":1}` {
		t.Errorf("direct: %+v", c)
	}
	meta := rl.MetaTools()
	if c := rl.WrapCall(meta, "get", `{"k":1}`); c.Name != "call_tool" || c.Arguments != `{"arguments":{"k":1},"tool_name":"get"}` {
		t.Errorf("meta: %+v", c)
	}
	if c := rl.WrapCall(meta, "get", `{"k":`); c.Arguments != `{"arguments":"{\"k\":","tool_name":"get"}` {
		t.Errorf("meta, bad JSON: %+v", c)
	}
}
