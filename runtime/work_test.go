package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/internal/cpuhog"
)

// Issue 35: a tool call's limit counts work. With call_timeout 20 ms, a
// query of 100,000 rows (about 1,000 of the call's 2,560 SQLite polls)
// always finishes, however busy the machine: at 9d42a3d the limit was 20 ms
// of wall time, which busy loops beside it made it miss. A query ten times
// longer always stops, at its work limit, with the same answer each time.
func TestCallLimitsCountWork(t *testing.T) {
	b := *testBundle(t, "edge", false)
	m := b.Manifest
	m.Limits.CallTimeoutMS = 20
	b.Manifest = m
	e, err := LoadBundle(context.Background(), &b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	defer cpuhog.Start()()

	count := func(n int) string {
		return fmt.Sprintf(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d) SELECT count(*) AS n FROM c`, n)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ep := newEpisode(t, e, "", int64(i))
			if r := query(t, ep, count(100_000)); r.Content != `[{"n":100000}]` {
				t.Errorf("within its work: %+v", r)
			}
			r := query(t, ep, count(1_000_000))
			if r.Outcome != OutcomeTimeout || !strings.Contains(r.Content, "ran past its work limit") {
				t.Errorf("past its work: %+v", r)
			}
		}()
	}
	wg.Wait()
}
