package runtime

import (
	"context"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Benchmarks of an episode's lifecycle on bench/testdata/benchenv: reset
// after writes, open and close, and the memory an idle episode holds.
//
//	go test -run '^$' -bench Episode -count 6 -benchtime 0.3s ./runtime

// BenchmarkEpisodeReset times the reset alone (reset-ns/op) after the
// writes `wasmenv bench` does before its timed resets; ns/op includes the
// calls.
func BenchmarkEpisodeReset(b *testing.B) {
	e := loadBenchEnv(b)
	ep := newEpisode(b, e, "", 1)
	for _, c := range []struct {
		name   string
		writes int
	}{{"after-1-write", 1}, {"after-5-writes", 5}} {
		b.Run(c.name, func(b *testing.B) {
			args := make([][]byte, c.writes)
			for i := range args {
				args[i] = []byte(`{"order_id":` + strconv.Itoa(17+i*997) + `,"status":"cancelled"}`)
			}
			var reset time.Duration
			b.ReportAllocs()
			for b.Loop() {
				for _, a := range args {
					benchCall(b, ep, "set_order_status", a)
				}
				t0 := time.Now()
				if err := ep.Reset(); err != nil {
					b.Fatal(err)
				}
				reset += time.Since(t0)
			}
			b.ReportMetric(float64(reset.Nanoseconds())/float64(b.N), "reset-ns/op")
		})
	}
}

// BenchmarkEpisodeOpenClose is what a rollout pays per episode besides its
// calls: open then close (idle), and open, one point read, close.
func BenchmarkEpisodeOpenClose(b *testing.B) {
	e := loadBenchEnv(b)
	args := []byte(`{"order_id":1234}`)
	b.Run("idle", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ep, err := e.NewEpisode("", 1)
			if err != nil {
				b.Fatal(err)
			}
			ep.Close()
		}
	})
	b.Run("one-read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ep, err := e.NewEpisode("", 1)
			if err != nil {
				b.Fatal(err)
			}
			benchCall(b, ep, "get_order", args)
			ep.Close()
		}
	})
	// Without the pool every episode opens its connection at its first call.
	unpooled, err := LoadBundle(context.Background(), benchBundle, Options{ConnPool: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer unpooled.Close()
	b.Run("one-read-unpooled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ep, err := unpooled.NewEpisode("", 1)
			if err != nil {
				b.Fatal(err)
			}
			benchCall(b, ep, "get_order", args)
			ep.Close()
		}
	})
}

// BenchmarkEpisodeIdleRSS reports the resident memory an idle episode
// (opened, no call yet) holds, as `wasmenv bench` measures it: RSS after
// opening 500 episodes, less RSS before, over 500.
func BenchmarkEpisodeIdleRSS(b *testing.B) {
	e := loadBenchEnv(b)
	const n = 500
	var per float64
	for b.Loop() {
		before := residentBytes(b)
		eps := make([]*Episode, 0, n)
		for range n {
			ep, err := e.NewEpisode("", 1)
			if err != nil {
				b.Fatal(err)
			}
			eps = append(eps, ep)
		}
		per = float64(residentBytes(b)-before) / n
		for _, ep := range eps {
			ep.Close()
		}
	}
	b.ReportMetric(per, "idle-B/episode")
}

// residentBytes is the process's RSS after a GC that returned what it could.
func residentBytes(tb testing.TB) int64 {
	goruntime.GC()
	debug.FreeOSMemory()
	s, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		tb.Skip("no /proc/self/statm:", err)
	}
	f := strings.Fields(string(s))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// BenchmarkEpisodeWriteBudget is the write budget's check after a
// single-row write: the cache bound (what runs) and the exact page count
// (what ran on every writing call before).
func BenchmarkEpisodeWriteBudget(b *testing.B) {
	e := loadBenchEnv(b)
	ep := newEpisode(b, e, "", 1)
	benchCall(b, ep, "set_order_status", []byte(`{"order_id":17,"status":"cancelled"}`))
	for _, bound := range []bool{true, false} {
		name := map[bool]string{true: "bound", false: "exact"}[bound]
		b.Run(name, func(b *testing.B) {
			budgetBound = bound
			defer func() { budgetBound = true }()
			b.ReportAllocs()
			for b.Loop() {
				if _, over := ep.overBudget(); over {
					b.Fatal("over budget")
				}
			}
		})
	}
}

// BenchmarkEpisodeVaryingArgs calls list_orders with new arguments each
// time (user and a bound LIMIT), as an agent does: the statement must not
// be re-prepared per call (TestStatementsAreNotReprepared).
func BenchmarkEpisodeVaryingArgs(b *testing.B) {
	e := loadBenchEnv(b)
	ep := newEpisode(b, e, "", 1)
	args := make([][]byte, 70)
	for i := range args {
		args[i] = []byte(`{"user_id":` + strconv.Itoa(i*7%500+1) + `,"limit":` + strconv.Itoa(i%10+1) + `}`)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		benchCall(b, ep, "list_orders", args[i%len(args)])
		i++
	}
}

// BenchmarkEpisodeActiveRSS reports the resident memory of an episode
// between steps (it has called, holds its connection and its writes), as
// `wasmenv bench`'s "active" row: RSS after 300 episodes made one write
// and one read each (and, after-diff, a DiffAndHash: tracked, or the full
// scan it replaced), less RSS before, over 300; and where SQLite says its
// part goes (per connection: page cache, schemas, prepared statements,
// lookaside slots).
func BenchmarkEpisodeActiveRSS(b *testing.B) {
	e := loadBenchEnv(b)
	e.maxConns = -1 // every episode keeps its connection: what one costs (parked: BenchmarkParkedActiveRSS)
	const n = 300
	for _, c := range []string{"between-steps", "after-diff", "after-full-scan-diff"} {
		b.Run(c, func(b *testing.B) {
			var per float64
			var cache, schema, stmts, look int64
			for b.Loop() {
				e.CloseIdleConns()
				before := residentBytes(b)
				eps := make([]*Episode, 0, n)
				for i := range n {
					ep, err := e.NewEpisode("", 1)
					if err != nil {
						b.Fatal(err)
					}
					benchCall(b, ep, "set_order_status", []byte(`{"order_id":`+strconv.Itoa(1+i*13)+`,"status":"cancelled"}`))
					benchCall(b, ep, "get_order", []byte(`{"order_id":`+strconv.Itoa(1+i*17)+`}`))
					if c != "between-steps" {
						ep.fullScan = c == "after-full-scan-diff"
						if _, _, err := ep.DiffAndHash(); err != nil {
							b.Fatal(err)
						}
					}
					eps = append(eps, ep)
				}
				per = float64(residentBytes(b)-before) / n
				cache, schema, stmts, look = 0, 0, 0, 0
				for _, ep := range eps {
					for _, s := range []struct {
						op  sqlite3.DBStatus
						sum *int64
					}{{sqlite3.DBSTATUS_CACHE_USED, &cache}, {sqlite3.DBSTATUS_SCHEMA_USED, &schema},
						{sqlite3.DBSTATUS_STMT_USED, &stmts}, {sqlite3.DBSTATUS_LOOKASIDE_USED, &look}} {
						v, _, _ := ep.conn.Status(s.op, false)
						*s.sum += v
					}
				}
				for _, ep := range eps {
					ep.Close()
				}
			}
			b.ReportMetric(per, "active-B/episode")
			b.ReportMetric(float64(cache)/n, "cache-B/conn")
			b.ReportMetric(float64(schema)/n, "schema-B/conn")
			b.ReportMetric(float64(stmts)/n, "stmt-B/conn")
			b.ReportMetric(float64(look)/n, "lookaside-slots/conn")
		})
	}
}
