package retain

import (
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// TestExaminerSeesWhatDecided: a guard every attempt held is left out of
// the case (it did not decide the failure); a guard an attempt failed is
// shown with its marks, and so is a check that is not a guard, whatever
// its name.
func TestExaminerSeesWhatDecided(t *testing.T) {
	task := &envpkg.Task{ID: "t", Instruction: "do it", Checks: []envpkg.Check{
		{Name: "the change", SQL: "SELECT 1 -- change"},
		{Name: "kept", SQL: "SELECT 1 -- model kept", Guard: false},
		{Name: "nothing else changed", SQL: "SELECT 1 -- held guard", Guard: true},
		{Name: "stamps", SQL: "SELECT 1 -- failed guard", Guard: true},
	}}
	attempt := rl.Rollout{Checks: []runtime.CheckResult{
		{Name: "the change"}, {Name: "kept", Passed: true},
		{Name: "nothing else changed", Passed: true, Guard: true}, {Name: "stamps", Guard: true},
	}}
	got := renderCase(Case{Rules: "r", Task: task, Attempts: []rl.Rollout{attempt}})
	for _, want := range []string{"-- change", "-- model kept", "-- failed guard", "[FAIL stamps]", "[pass kept]"} {
		if !strings.Contains(got, want) {
			t.Errorf("the case lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "-- held guard") || strings.Contains(got, "nothing else changed") {
		t.Errorf("the case shows a guard every attempt held:\n%s", got)
	}
}
