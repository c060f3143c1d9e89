package taubench_test

// These tests build the wasmenv CLI and the taubench-airline bundle, then
// replay τ-bench's reference episodes (testdata/test_ref.jsonl, computed with
// τ-bench's Python tools) and require byte-identical outputs for every call
// and the same state diff for every episode.

import (
	"os"
	"strings"
	"testing"

	tb "github.com/wasmenv/wasmenv/internal/taubenchtest"
)

// h holds the CLI and the bundle, built once by TestMain.
var h tb.Harness

func TestMain(m *testing.M) { os.Exit(h.Main(m, "taubench-airline")) }

func TestReferenceEpisodes(t *testing.T) {
	refs := tb.LoadRefs(t, "test_ref.jsonl")
	if len(refs) != 50 {
		t.Fatalf("expected 50 reference episodes, found %d", len(refs))
	}
	if n := h.CheckEpisodes(t, refs); n != 158 {
		t.Errorf("%d calls, want 158", n)
	}
}

// TestTaskRewards checks the tasks' scoring: the ground truth (with an
// answer holding the expected outputs, where the task has any) scores 1;
// doing nothing scores less for a task whose ground truth changes the state;
// the ground truth without the expected answer scores less.
func TestTaskRewards(t *testing.T) {
	refs := tb.LoadRefs(t, "test_ref.jsonl")
	var in []tb.ReplayIn
	changing := map[string]bool{}
	for _, ep := range refs {
		truth := tb.ReplayIn{ID: ep.ID + "/truth", Task: ep.ID, Calls: ep.Calls}
		if len(ep.ExpectedOutputs) > 0 {
			// as an agent would write them: with thousands separators
			a := "The answer: " + strings.Join(ep.ExpectedOutputs, ", ")
			a = strings.ReplaceAll(a, "1786", "1,786")
			truth.Answer = &a
			in = append(in, tb.ReplayIn{ID: ep.ID + "/no-answer", Task: ep.ID, Calls: ep.Calls},
				tb.ReplayIn{ID: ep.ID + "/answer-only", Task: ep.ID, Answer: &a})
		}
		in = append(in, truth)
		for _, recs := range ep.StateDiff {
			if len(recs) > 0 {
				changing[ep.ID] = true
			}
		}
		if changing[ep.ID] {
			in = append(in, tb.ReplayIn{ID: ep.ID + "/nothing", Task: ep.ID})
		}
	}
	res := h.Replay(t, in)
	answers := 0
	for _, ep := range refs {
		if r := tb.Reward(t, res[ep.ID+"/truth"]); r != 1 {
			t.Errorf("%s: ground truth scores %v, want 1", ep.ID, r)
		}
		if len(ep.ExpectedOutputs) > 0 {
			answers++
			if r := tb.Reward(t, res[ep.ID+"/no-answer"]); r != 0 {
				t.Errorf("%s: the ground truth without the expected answer scores %v, want 0 (τ-bench: all or nothing)", ep.ID, r)
			}
			if r := tb.Reward(t, res[ep.ID+"/answer-only"]); changing[ep.ID] && r != 0 {
				t.Errorf("%s: the expected answer without a call scores %v, want 0 (τ-bench: all or nothing)", ep.ID, r)
			}
		}
		if changing[ep.ID] {
			if r := tb.Reward(t, res[ep.ID+"/nothing"]); r != 0 {
				t.Errorf("%s: an empty episode scores %v, want 0", ep.ID, r)
			}
		}
	}
	if answers != 4 {
		t.Errorf("%d tasks with expected outputs, want 4", answers)
	}
	t.Logf("%d tasks; %d change the state; %d expect outputs", len(refs), len(changing), answers)
}

func TestTasksListed(t *testing.T) { h.CheckTasksListed(t, tb.LoadRefs(t, "test_ref.jsonl")) }
