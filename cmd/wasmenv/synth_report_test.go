package main

import (
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
	for _, want := range []string{"environment sakila", "tools: 133", "used by the tasks", "tasks: 220", "chain lengths: 1 calls:",
		"oracle: mean reward 1.000, success 100%", "random policy: mean reward 0.0", "dropped by the gates:", "skipped: table film_text: written by trigger"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
}
