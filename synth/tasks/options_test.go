package tasks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth"
)

// TestChainAndShareAsGiven: --max-chain 1 and --write-share 0 mean what they
// say (they were taken for "default": 5 calls and half writes).
func TestChainAndShareAsGiven(t *testing.T) {
	db := shopDB(t)
	zero := 0.0
	res := fromDB(t, db, synth.Options{Tasks: 15, MaxChain: 1, WriteShare: &zero})
	if len(res.Tasks) == 0 {
		t.Fatal("no task kept")
	}
	for _, task := range res.Tasks {
		if len(task.Calls) > 1 {
			t.Errorf("task %s has %d calls with --max-chain 1", task.ID, len(task.Calls))
		}
		if slices.ContainsFunc(task.Checks, func(c envpkg.Check) bool { return !c.Guard }) || task.Answer == nil {
			t.Errorf("task %s is a write task with --write-share 0", task.ID)
		}
	}
}

// A question changes nothing: every task that only asks carries a guard
// that the state is untouched, so a stray write while looking the answer up
// fails the task (an LLM judge counted such tasks as accepting a wrong
// solution: 8 of 25 on chinook).
func TestQuestionsGuardTheState(t *testing.T) {
	zero := 0.0
	res := fromDB(t, shopDB(t), synth.Options{Tasks: 12, WriteShare: &zero})
	if len(res.Tasks) == 0 {
		t.Fatal("no task kept")
	}
	for _, task := range res.Tasks {
		if task.Answer == nil {
			continue
		}
		if !slices.ContainsFunc(task.Checks, func(c envpkg.Check) bool { return c.Guard && strings.Contains(c.SQL, "init.") }) {
			t.Errorf("question %s has no guard on the state: %+v", task.ID, task.Checks)
		}
	}
}
