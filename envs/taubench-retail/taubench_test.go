package taubench_test

// These tests build the wasmenv CLI and the taubench-retail bundle, then
// replay τ-bench's reference episodes (testdata/*_ref.jsonl, computed with
// τ-bench's Python tools) and require byte-identical output for every call
// and the same state diff for every episode.

import (
	"os"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/bench/taubench"
	tb "github.com/wasmenv/wasmenv/internal/taubenchtest"
)

// h holds the CLI and the bundle, built once by TestMain.
var h tb.Harness

func TestMain(m *testing.M) { os.Exit(h.Main(m, "taubench-retail")) }

func loadRefs(t *testing.T) []taubench.RefEpisode {
	return tb.LoadRefs(t, "test_ref.jsonl", "dev_ref.jsonl")
}

func TestReferenceEpisodes(t *testing.T) {
	refs := loadRefs(t)
	if len(refs) != 135 {
		t.Fatalf("expected 135 reference episodes, found %d", len(refs))
	}
	if n := h.CheckEpisodes(t, refs); n != 607 {
		t.Errorf("%d calls, want 607", n)
	}
}

// TestTaskRewards checks reward: state and τ-bench's output check:
// replaying a task's ground truth (with its expected outputs as the answer,
// where it has any) scores 1; doing nothing scores less when the ground truth
// changes the state; the ground truth without the answer scores less.
func TestTaskRewards(t *testing.T) {
	refs := loadRefs(t)
	var in []tb.ReplayIn
	changing := map[string]bool{}
	answers := 0
	for _, ep := range refs {
		truth := tb.ReplayIn{ID: ep.ID + "/truth", Task: ep.ID, Calls: ep.Calls}
		if len(ep.ExpectedOutputs) > 0 {
			answers++
			a := "Here you go: " + strings.Join(ep.ExpectedOutputs, " and ")
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
	for _, ep := range refs {
		if r := tb.Reward(t, res[ep.ID+"/truth"]); r != 1 {
			t.Errorf("%s: ground truth scores %v, want 1", ep.ID, r)
		}
		if changing[ep.ID] {
			if r := tb.Reward(t, res[ep.ID+"/nothing"]); r != 0 {
				t.Errorf("%s: an empty episode scores %v, want 0", ep.ID, r)
			}
		}
		if len(ep.ExpectedOutputs) > 0 {
			if r := tb.Reward(t, res[ep.ID+"/no-answer"]); r != 0 {
				t.Errorf("%s: the ground truth without the expected answer scores %v, want 0 (τ-bench: all or nothing)", ep.ID, r)
			}
			if r := tb.Reward(t, res[ep.ID+"/answer-only"]); changing[ep.ID] && r != 0 {
				t.Errorf("%s: the expected answer without a call scores %v, want 0 (τ-bench: all or nothing)", ep.ID, r)
			}
		}
	}
	if answers != 37 {
		t.Errorf("%d tasks expect outputs, want 37", answers)
	}
	t.Logf("%d tasks; %d change the state; %d expect outputs", len(refs), len(changing), answers)
}

func TestTasksListed(t *testing.T) { h.CheckTasksListed(t, loadRefs(t)) }
