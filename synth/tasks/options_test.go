package tasks_test

import (
	"testing"

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
		if len(task.Checks) > 0 || task.Answer == nil {
			t.Errorf("task %s is a write task with --write-share 0", task.ID)
		}
	}
}
