package llm

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/llmreplay"
)

// TestTaskStepsPrompt: the option changes the tasks prompt and the rules
// only when it is on; off, the prompt is byte for byte the one recorded
// runs were answered with (TestRelayedCorpusReplays replays them), and the
// rules are the model's as written.
func TestTaskStepsPrompt(t *testing.T) {
	p, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	render := func(steps int) (string, string) {
		r := &envRun{p: &pipeline{cfg: Config{TaskSteps: steps}, prompts: p}, sc: Scenario{Name: "x", Title: "X", Description: "d"}}
		r.p.cfg.defaults()
		msgs, err := p.messages(StageTasks, r.base())
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, m := range msgs {
			b.WriteString(m.Content)
		}
		return b.String(), r.withClockRule("Be kind.\n")
	}
	off, rulesOff := render(0)
	on, rulesOn := render(4)
	if strings.Contains(off, "tool calls") || !strings.Contains(off, "\"renew-overdue-loan\".\n\nAnswer as") {
		t.Errorf("off, the tasks prompt changed:\n%s", off)
	}
	if !strings.Contains(on, "at least 4 tool calls") || !strings.Contains(on, "refuse or do less") || !strings.HasSuffix(strings.Split(on, "Answer as")[0], ".\n\n") {
		t.Errorf("on, the tasks prompt does not ask for depth:\n%s", on)
	}
	if rulesOff != "Be kind.\n" {
		t.Errorf("off, the rules changed: %q", rulesOff)
	}
	want := "Be kind.\n\nToday is Monday, 3 June 2024 (the application's clock: 2024-06-03T09:00:00Z)"
	if !strings.HasPrefix(rulesOn, want) {
		t.Errorf("on, the rules = %q, want the clock stated (%q…)", rulesOn, want)
	}
}

// TestStepsCheck: the first attempt whose only problems are short tasks
// goes back to the model; a later one is accepted with the short tasks
// failing (so the stage drops them with their reason); an attempt with
// other problems is never accepted for it.
func TestStepsCheck(t *testing.T) {
	var s stepsCheck
	short := map[string]string{"a": "task a: too short"}
	f1 := map[string][]string{}
	if s.verdict(f1, short) || len(f1["a"]) != 1 {
		t.Fatalf("first short-only attempt: accepted or not failing: %v", f1)
	}
	f2 := map[string][]string{"b": {"task b fails gate replay"}}
	if s.verdict(f2, short) {
		t.Fatal("an attempt with a gate failure was accepted")
	}
	f3 := map[string][]string{}
	if !s.verdict(f3, short) || len(f3["a"]) != 1 {
		t.Fatalf("second short-only attempt not accepted with a failing: %v", f3)
	}
	if (&stepsCheck{}).verdict(map[string][]string{}, nil) {
		t.Fatal("no short task, accepted")
	}
}

// TestRelayedTaskSteps replays a run recorded through the relay with
// --task-steps 4 (round 9's farmers' market stalls and boiler servicing,
// a chat model answering every stage and playing the agent): tasks whose
// ground truth made fewer than 4 calls went back to the model through the
// verifiers stage's repair path with that reason, came back as short (the
// instruction needs no more), and were dropped with the reason recorded;
// every kept task's ground truth makes at least 4 calls, and the rules the
// agent sees state the application's clock.
func TestRelayedTaskSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	run := corpusRun{"scenarios-r9-tools.jsonl", false, 12, 2, 4, "recording-r9"}
	srv := llmreplay.New(t, filepath.Join(corpusDir, run.recordingDir()))
	out := t.TempDir()
	cfg := corpusConfig(srv.URL, out, run, readCorpusScenarios(t, run.scenarios))
	if cfg.TaskSteps != 4 {
		t.Fatalf("the recorded run's options were not applied: TaskSteps = %d", cfg.TaskSteps)
	}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	const reason = "fewer than the 4 steps this run asks of every task"
	shortDropped := 0
	for _, env := range rep.Envs {
		if !env.Kept {
			t.Fatalf("%s: dropped: %s", env.Scenario.Name, env.Reason)
		}
		fedBack := false
		for _, r := range env.Repairs {
			if strings.HasPrefix(r, StageVerifiers) && strings.Contains(r, reason) {
				fedBack = true
			}
		}
		if !fedBack {
			t.Errorf("%s: no verifiers repair carried the step count back to the model: %q", env.Scenario.Name, env.Repairs)
		}
		for _, d := range env.Dropped {
			if strings.Contains(d.Reason, reason) {
				shortDropped++
			}
		}
		dir := filepath.Join(out, env.Scenario.Name)
		for _, line := range strings.Split(strings.TrimSpace(readFile(t, filepath.Join(dir, "tasks.jsonl"))), "\n") {
			var task envpkg.Task
			if err := json.Unmarshal([]byte(line), &task); err != nil {
				t.Fatal(err)
			}
			if len(task.Calls) < 4 {
				t.Errorf("%s/%s kept with %d ground-truth calls", env.Scenario.Name, task.ID, len(task.Calls))
			}
		}
		if y := readFile(t, filepath.Join(dir, "env.yaml")); !strings.Contains(y, "Today is Monday, 3 June 2024") {
			t.Errorf("%s: the rules do not state the clock:\n%s", env.Scenario.Name, y)
		}
	}
	if shortDropped == 0 {
		t.Error("no task was dropped for a ground truth shorter than 4 calls")
	}
}
