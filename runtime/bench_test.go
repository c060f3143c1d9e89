package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
)

// Benchmarks of the hot paths on bench/testdata/benchenv (8,000 orders).
// Compare runs with benchstat:
//
//	go test -run '^$' -bench . -count 10 ./runtime > new.txt
//	go run golang.org/x/perf/cmd/benchstat@latest old.txt new.txt
//
// To see the guest's own functions in a profile, keep their names and
// build with wazero's perfmap tag (perf then reads /tmp/perf-PID.map):
//
//	WASMENV_BENCH_NAMES=1 perf record go test -tags perfmap -run '^$' -bench Call/read ./runtime

var (
	benchOnce   sync.Once
	benchBundle *envpkg.Bundle
	benchErr    error
)

func loadBenchEnv(b testing.TB) *Env {
	b.Helper()
	benchOnce.Do(func() {
		dir := filepath.Join("..", "bench", "testdata", "benchenv")
		opts := compiler.Options{KeepNames: os.Getenv("WASMENV_BENCH_NAMES") != ""}
		benchBundle, benchErr = compiler.Build(context.Background(), dir, opts)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	e, err := LoadBundle(context.Background(), benchBundle, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

func benchCall(b *testing.B, ep *Episode, tool string, args []byte) {
	r, err := ep.Call(context.Background(), tool, args)
	if err != nil || r.IsError {
		b.Fatalf("%s(%s): %v %s", tool, args, err, r.Content)
	}
}

func BenchmarkReset(b *testing.B) {
	e := loadBenchEnv(b)
	ep := newEpisode(b, e, "", 1)
	if err := ep.connect(); err != nil { // a reset with a connection to roll back
		b.Fatal(err)
	}
	b.Run("clean", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := ep.Reset(); err != nil {
				b.Fatal(err)
			}
		}
	})
	// One single-row write then the reset: subtract BenchmarkCall/write.
	b.Run("after-write", func(b *testing.B) {
		args := []byte(`{"order_id":17,"status":"cancelled"}`)
		b.ReportAllocs()
		for b.Loop() {
			benchCall(b, ep, "set_order_status", args)
			if err := ep.Reset(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCall(b *testing.B) {
	e := loadBenchEnv(b)
	ep := newEpisode(b, e, "", 1)
	for _, c := range []struct{ name, tool, args string }{
		{"read", "get_order", `{"order_id":1234}`},
		{"write", "set_order_status", `{"order_id":1234,"status":"shipped"}`},
		{"list", "list_orders", `{"user_id":42,"limit":10}`},
	} {
		args := []byte(c.args)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0, n := cpuTime(), 0
			for b.Loop() {
				benchCall(b, ep, c.tool, args)
				n++
			}
			// The process's CPU time per call: less moved by other
			// processes on a loaded machine than the wall time.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(n), "cpu-ns/op")
		})
	}
}

func BenchmarkCallParallel(b *testing.B) {
	e := loadBenchEnv(b)
	args := []byte(`{"order_id":1234}`)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ep, err := e.NewEpisode("", 1)
		if err != nil {
			b.Error(err)
			return
		}
		defer ep.Close()
		for pb.Next() {
			benchCall(b, ep, "get_order", args)
		}
	})
}

func BenchmarkDiff(b *testing.B) {
	e := loadBenchEnv(b)
	ep := newEpisode(b, e, "", 1)
	for _, id := range []int{100, 102, 103, 104, 106} { // none is shipped yet
		benchCall(b, ep, "set_order_status", fmt.Appendf(nil, `{"order_id":%d,"status":"shipped"}`, id))
	}
	b.ReportAllocs()
	for b.Loop() {
		d, err := ep.Diff()
		if err != nil || len(d["orders"]) != 5 {
			b.Fatal(d, err)
		}
	}
}

func BenchmarkNewEpisode(b *testing.B) {
	e := loadBenchEnv(b)
	b.ReportAllocs()
	for b.Loop() {
		ep, err := e.NewEpisode("", 1)
		if err != nil {
			b.Fatal(err)
		}
		ep.Close()
	}
}

// BenchmarkFixedCost splits what every call pays whatever the tool does:
// the whole Call of a tool that does nothing, the guest invocation alone,
// and the savepoint pair around it.
func BenchmarkFixedCost(b *testing.B) {
	e := loadEnv(b, "types")
	ep := newEpisode(b, e, "", 1)
	if err := ep.connect(); err != nil { // its connection, opened by its first call
		b.Fatal(err)
	}
	ctx := context.Background()
	args := []byte(`{}`)
	b.Run("call-empty-tool", func(b *testing.B) {
		for b.Loop() {
			ep.Call(ctx, "nothing", args)
		}
	})
	b.Run("guest-invoke", func(b *testing.B) {
		inst, err := e.getInstance(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer e.putInstance(inst)
		idx := uint32(e.tools["nothing"])
		c := &toolCall{ep: ep, inst: inst, ctx: ctx}
		c.begin()
		for b.Loop() {
			inst.invoke(ctx, e, idx, args)
		}
		c.end()
	})
	b.Run("savepoint-pair", func(b *testing.B) {
		for b.Loop() {
			ep.spBegin.Exec()
			ep.spCommit.Exec()
		}
	})
}
