package rl_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// The JSONL file carries every field docs/ROLLOUT.md promises, in the
// OpenAI chat format, and appears only when the run is done.
func TestJSONLFields(t *testing.T) {
	env := rltest.Load(t, "store")
	path := filepath.Join(t.TempDir(), "out.jsonl")
	out, err := rl.CreateJSONL(path)
	if err != nil {
		t.Fatal(err)
	}
	out.Inline = true // the whole-line form; TestCompactRolloutsRoundTrip reads the compact one
	_, err = rl.Run(context.Background(), []*runtime.Env{env}, rl.Oracle{},
		rl.Config{Group: 2, Tasks: "cancel-*", Reward: rl.Fraction{}}, out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file exists before Close: %v", err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	lines := 0
	for sc.Scan() {
		lines++
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"env", "task", "group", "seed", "messages", "tools", "reward",
			"reward_components", "advantage", "turns", "format_error", "state_hash", "finish", "checks"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("line %d has no %q: %s", lines, k, sc.Text())
			}
		}
		msgs := m["messages"].([]any)
		if msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["role"] != "user" {
			t.Fatalf("conversation does not open with rules and instruction: %v", msgs[:2])
		}
		a := msgs[2].(map[string]any)
		tc := a["tool_calls"].([]any)[0].(map[string]any)
		fn := tc["function"].(map[string]any)
		if _, ok := fn["arguments"].(string); !ok || tc["type"] != "function" {
			t.Fatalf("tool call not in OpenAI form: %v", tc)
		}
		if tm := msgs[3].(map[string]any); tm["role"] != "tool" || tm["tool_call_id"] != tc["id"] {
			t.Fatalf("tool result does not answer the call: %v", tm)
		}
		if m["reward"].(float64) != 1 || m["reward_components"].(map[string]any)["checks_fraction"].(float64) != 1 {
			t.Fatalf("oracle line: reward %v components %v", m["reward"], m["reward_components"])
		}
		if tools := m["tools"].([]any); len(tools) != len(env.Tools()) {
			t.Fatalf("%d tools, env has %d", len(tools), len(env.Tools()))
		}
	}
	if lines == 0 || lines%2 != 0 {
		t.Fatalf("%d lines", lines)
	}
}

// Same bundle, tasks, seeds and policy give the same trajectories, rewards
// and state hashes.
func TestRandomIsReproducible(t *testing.T) {
	env := rltest.Load(t, "calendar")
	run := func() []rl.Rollout {
		var out rltest.Collect
		if _, err := rl.Run(context.Background(), []*runtime.Env{env}, &rl.Random{},
			rl.Config{Group: 3, Seed: 7, MaxTurns: 6, Concurrency: 5}, &out); err != nil {
			t.Fatal(err)
		}
		all := out.All()
		byKey := map[string]rl.Rollout{}
		for _, r := range all {
			byKey[r.GroupID+"#"+string(rune('0'+r.Index))] = r
		}
		var sorted []rl.Rollout
		for _, g := range env.Bundle.Tasks {
			for i := range 3 {
				sorted = append(sorted, byKey[env.Name()+"/"+g.ID+"/7#"+string(rune('0'+i))])
			}
		}
		return sorted
	}
	a, b := run(), run()
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d vs %d rollouts", len(a), len(b))
	}
	for i := range a {
		if a[i].StateHash != b[i].StateHash || a[i].Reward != b[i].Reward || !reflect.DeepEqual(a[i].Messages, b[i].Messages) {
			t.Fatalf("rollout %s #%d differs between runs", a[i].Task, a[i].Index)
		}
	}
	differ := false
	for i := 1; i < len(a); i++ {
		if a[i].Task == a[0].Task && !reflect.DeepEqual(a[i].Messages, a[0].Messages) {
			differ = true
		}
	}
	if !differ {
		t.Error("the rollouts of one group are all the same: seeds are not used")
	}
}
