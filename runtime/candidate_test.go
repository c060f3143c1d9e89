package runtime

import (
	"context"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
)

// TestCandidateLeavesBundleAlone: a task that is not in the bundle runs and
// scores (setup and reward: state included) while the bundle's task list is
// untouched, and Close drops what was cached for it.
func TestCandidateLeavesBundleAlone(t *testing.T) {
	e := loadEnv(t, "mini")
	before := len(e.Bundle.Tasks)
	ctx := context.Background()
	task := envpkg.Task{ID: e.Bundle.Tasks[0].ID, Instruction: "Put d.", Reward: envpkg.RewardState,
		Setup:  "INSERT INTO kv (k, v) VALUES ('d0', 'seeded')",
		Calls:  []envpkg.Call{{Name: "put", Arguments: []byte(`{"key":"d","value":"date"}`)}},
		Checks: []envpkg.Check{{Name: "d", SQL: "SELECT v = 'date' FROM main.kv WHERE k = 'd'"}, {Name: "setup", SQL: "SELECT COUNT(*) = 1 FROM main.kv WHERE k = 'd0'"}}}
	c := e.Candidate(task)
	ep, err := c.NewEpisode(1)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Task().ID == task.ID {
		t.Errorf("the candidate kept the id %q of a bundle task", task.ID)
	}
	s0, err := ep.Score(ctx, nil)
	if err != nil || s0.AllPassed {
		t.Fatalf("untouched candidate: %+v %v", s0, err)
	}
	call(t, ep, "put", `{"key":"d","value":"date"}`)
	s, err := ep.Score(ctx, nil)
	if err != nil || !s.AllPassed {
		t.Fatalf("candidate after its ground truth: %+v %v", s, err)
	}
	ep.Close()
	if len(e.Bundle.Tasks) != before {
		t.Errorf("bundle has %d tasks, had %d", len(e.Bundle.Tasks), before)
	}
	id := c.task.ID
	c.Close()
	e.mu.Lock()
	_, init := e.inits[id]
	_, gt := e.gtHashes[gtKey{id, 1}]
	e.mu.Unlock()
	if init || gt {
		t.Errorf("after Close: setup state kept %v, ground-truth hash kept %v", init, gt)
	}
	// The bundle's own task of that id is still its own.
	ep2 := newEpisode(t, e, task.ID, 1)
	if ep2.Task().Instruction == task.Instruction {
		t.Error("the bundle's task was replaced by the candidate")
	}
}
