package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestSynthReportCard: the card of an environment made by synth from-db
// names its tools, tasks, chain lengths, the oracle's 1.0 and a random
// policy's lower score, and what the source had skipped.
func TestSynthReportCard(t *testing.T) {
	stdout, stderr, code := run(t, "", "synth", "report", "../../envs/sakila")
	if code != 0 {
		t.Fatalf("report: %d\n%s\n%s", code, stdout, stderr)
	}
	// The card counts the tasks the bundle holds (a short set is short).
	tasks := len(strings.Split(strings.TrimSpace(readText(t, "../../envs/sakila/tasks.jsonl")), "\n"))
	for _, want := range []string{"environment sakila", "tools: 40", "used by the tasks", fmt.Sprintf("tasks: %d ", tasks), "chain lengths: 1 calls:",
		"oracle: mean reward 1.000, success 100%", "random policy: mean reward 0.0", "dropped by the gates:", "skipped: table film_text: written by trigger"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	// The tools no task calls are named, not only counted (issue 38).
	var tools, used int
	if _, err := fmt.Sscanf(stdout[strings.Index(stdout, "tools: "):], "tools: %d", &tools); err != nil {
		t.Fatal(err)
	}
	line := stdout[strings.Index(stdout, "tools: "):]
	line, _, _ = strings.Cut(line, "\n")
	if _, err := fmt.Sscanf(line[strings.LastIndex(line, "; ")+2:], "%d used by the tasks", &used); err != nil {
		t.Fatal(err)
	}
	i := strings.Index(stdout, "unused by the tasks (")
	if i < 0 {
		t.Fatalf("the unused tools are not named:\n%s", stdout)
	}
	names, _, _ := strings.Cut(stdout[i:], "\n")
	_, names, _ = strings.Cut(names, "): ")
	if n := len(strings.Split(names, ", ")); n != tools-used || !strings.Contains(names, "_") {
		t.Errorf("%d unused tools named (%q), want %d", n, names, tools-used)
	}
}
