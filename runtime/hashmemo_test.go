package runtime

import (
	"context"
	"testing"
)

// Issue 35: `wasmenv replay` asks for the diff and hash (DiffAndHash), then
// the score, whose state check needs the same hash. The score reuses the
// hash of the unchanged state instead of reading the written rows again,
// and computes it afresh once a call or a reset may have changed the state.
func TestScoreReusesTheStateHash(t *testing.T) {
	e := loadEnv(t, "mini")
	ctx := context.Background()
	ep := newEpisode(t, e, "state-b", 1)
	call(t, ep, "put", `{"key":"b","value":"blueberry"}`)
	_, h, err := ep.DiffAndHash()
	if err != nil {
		t.Fatal(err)
	}
	scans := ep.trackedScans
	s, err := ep.Score(ctx, nil)
	if err != nil || s.Reward != 1 || s.StateHash != h {
		t.Fatalf("solved: %+v %v (hash %s)", s, err, h)
	}
	if ep.trackedScans != scans {
		t.Fatalf("Score read the written rows again (%d views) for the hash DiffAndHash had just made", ep.trackedScans-scans)
	}

	// A call after the hash: the score sees the new state.
	call(t, ep, "put", `{"key":"c","value":"x"}`)
	if s, err = ep.Score(ctx, nil); err != nil || s.Reward != 0 || s.StateHash == h {
		t.Fatalf("extra write after the hash: %+v %v", s, err)
	}
	fresh, err := ep.StateHash()
	if err != nil || fresh != s.StateHash {
		t.Fatalf("Score's hash %s, StateHash %s %v", s.StateHash, fresh, err)
	}

	// A reset: the score sees the initial state again.
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	want, err := newEpisode(t, e, "state-b", 1).StateHash()
	if err != nil {
		t.Fatal(err)
	}
	if s, err = ep.Score(ctx, nil); err != nil || s.Reward != 0 || s.StateHash != want {
		t.Fatalf("after reset: %+v %v, want hash %s", s, err, want)
	}
	// A reset to another seed hashes another initial state.
	call(t, ep, "put", `{"key":"b","value":"blueberry"}`)
	if _, h, err = ep.DiffAndHash(); err != nil {
		t.Fatal(err)
	}
	if err := ep.ResetSeed(2); err != nil {
		t.Fatal(err)
	}
	want, err = newEpisode(t, e, "state-b", 2).StateHash()
	if err != nil {
		t.Fatal(err)
	}
	if s, err = ep.Score(ctx, nil); err != nil || s.StateHash != want {
		t.Fatalf("after ResetSeed(2): %+v %v, want hash %s", s, err, want)
	}
}
