package pywasm_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkPythonToolCall times pylibrary's tools through the runtime
// (sandboxed CPython, episode database) and reports the same function
// under native CPython (testdata/native: the sdk's API over sqlite3) as
// native-ns/op, when a python3 is on PATH.
func BenchmarkPythonToolCall(b *testing.B) {
	cases := []struct{ name, tool, args string }{
		{"point-read", "find_member", `{"email":"ada@example.org"}`},
		{"search", "search_books", `{"text":"the"}`},
		{"loans-join", "list_loans", `{"member_id":"m2","include_returned":true}`},
	}
	e := library(b)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ep := episode(b, e, "")
			ctx := context.Background()
			args := []byte(c.args)
			q := quantiles{}
			for b.Loop() {
				start := time.Now()
				r, err := ep.Call(ctx, c.tool, args)
				q.add(time.Since(start))
				if err != nil || r.IsError {
					b.Fatal(r, err)
				}
			}
			q.report(b)
			if ns, ok := nativeNs(c.tool, c.args); ok {
				b.ReportMetric(ns, "native-ns/op")
			}
		})
	}
}

// BenchmarkPythonEpisodeReset is the reset of an episode that borrowed a
// book (one row updated, one inserted).
func BenchmarkPythonEpisodeReset(b *testing.B) {
	e := library(b)
	ep := episode(b, e, "")
	for b.Loop() {
		b.StopTimer()
		if r := call(b, ep, "borrow_book", `{"member_id":"m1","book_id":"b4"}`); r.IsError {
			b.Fatal(r)
		}
		b.StartTimer()
		if err := ep.Reset(); err != nil {
			b.Fatal(err)
		}
	}
}

// quantiles keeps each call's time: on a loaded machine the mean moves
// with the load, while the 10th percentile stays near what the call costs
// when it has a core (reported as p10-ns/op beside the mean).
type quantiles []time.Duration

func (q *quantiles) add(d time.Duration) { *q = append(*q, d) }

func (q quantiles) report(b *testing.B) {
	if len(q) == 0 {
		return
	}
	slices.Sort(q)
	b.ReportMetric(float64(q[len(q)/10]), "p10-ns/op")
	b.ReportMetric(float64(q[len(q)/2]), "p50-ns/op")
}

// p50 is the median call, in ns (sorts q).
func (q quantiles) p50() float64 {
	if len(q) == 0 {
		return 0
	}
	slices.Sort(q)
	return float64(q[len(q)/2])
}

func nativeNs(tool, args string) (float64, bool) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return 0, false
	}
	env, _ := filepath.Abs(libraryDir)
	out, err := exec.Command(py, filepath.Join("testdata", "native", "bench.py"), env, tool, args, "20000").Output()
	if err != nil {
		return 0, false
	}
	ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	return ns, err == nil && os.Getenv("WASMENV_NO_NATIVE") == ""
}
