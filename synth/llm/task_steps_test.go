package llm

import (
	"strings"
	"testing"
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
