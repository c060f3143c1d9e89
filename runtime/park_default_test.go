package runtime

import (
	"context"
	goruntime "runtime"
	"testing"
)

// Under the default Options, episodes stepping in turn hold at most 4
// connections per processor (at least 16) between their steps: past that,
// connections touched in turn are memory-bound (a reset's rollback and
// the next call miss the CPU caches; park.go). With the old default of
// 256, all 64 episodes here kept theirs.
func TestDefaultMaxConnsParksPastAFewPerProcessor(t *testing.T) {
	b := *testBundle(t, "edge", false)
	e, err := LoadBundle(context.Background(), &b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	limit := int64(max(16, 4*goruntime.GOMAXPROCS(0)))
	n := int(limit) + 48
	eps := make([]*Episode, n)
	for i := range eps {
		eps[i] = newEpisode(t, e, "", int64(i))
		defer eps[i].Close()
		if r := query(t, eps[i], "SELECT 1"); r.IsError {
			t.Fatalf("episode %d: %s", i, r.Content)
		}
		if live := e.liveConns.Load(); live > limit {
			t.Fatalf("after %d episodes stepped: %d connections held between steps, want <= %d", i+1, live, limit)
		}
	}
	parked := 0
	for _, ep := range eps {
		if ep.sqlConn == nil {
			parked++
		}
	}
	if parked < n-int(limit) {
		t.Fatalf("%d of %d episodes parked, want >= %d", parked, n, n-int(limit))
	}
}
