package loadgen

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/runtime"
)

// TestBenchSmall is a small version of `wasmenv serve-bench`: real loopback
// HTTP, many episodes, and the leak checks. WASMENV_BENCH_CALLS and
// WASMENV_BENCH_EPISODES make it bigger.
func TestBenchSmall(t *testing.T) {
	env := miniEnv(t)
	o := Options{Episodes: 100, Calls: 5000}
	if n, err := strconv.Atoi(os.Getenv("WASMENV_BENCH_CALLS")); err == nil {
		o.Calls = int64(n)
	}
	if n, err := strconv.Atoi(os.Getenv("WASMENV_BENCH_EPISODES")); err == nil {
		o.Episodes = n
	}
	res, err := Run(context.Background(), []*runtime.Env{env}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d episodes, %d calls, %.0f calls/s, p50 %.3fms p99 %.3fms", res.Episodes, res.Calls, res.CallsPerSec, res.Latency.P50, res.Latency.P99)
	// On a loaded machine a call can be starved past the environment's
	// 500ms call_timeout and come back as a tool error: allow a few, but
	// nothing may leak.
	leaks := res.Leaks
	if res.Errors > 0 && len(leaks) > 0 && strings.HasPrefix(leaks[0], "first call error") {
		t.Logf("%d calls failed; the first: %s", res.Errors, leaks[0])
		leaks = leaks[1:]
	}
	if res.Calls != o.Calls || res.Errors > o.Calls/100 || len(leaks) != 0 {
		t.Fatalf("calls %d errors %d leaks %v", res.Calls, res.Errors, res.Leaks)
	}
}

// TestBenchSmallSocket is TestBenchSmall with the calls over GET /v1/ws:
// more episodes than connections, the same leak checks.
func TestBenchSmallSocket(t *testing.T) {
	env := miniEnv(t)
	o := Options{Episodes: 100, Calls: 5000, Socket: true, Conns: 7}
	if n, err := strconv.Atoi(os.Getenv("WASMENV_BENCH_CALLS")); err == nil {
		o.Calls = int64(n)
	}
	if n, err := strconv.Atoi(os.Getenv("WASMENV_BENCH_EPISODES")); err == nil {
		o.Episodes, o.Conns = n, min(n, 7)
	}
	if n, err := strconv.Atoi(os.Getenv("WASMENV_BENCH_CONNS")); err == nil {
		o.Conns = n
	}
	for _, batch := range []bool{false, true} {
		o.Batch = batch
		t.Run(fmt.Sprintf("batch=%v", batch), func(t *testing.T) { benchSocket(t, env, o) })
	}
}

func benchSocket(t *testing.T, env *runtime.Env, o Options) {
	res, err := Run(context.Background(), []*runtime.Env{env}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d episodes over %d connections, %d calls, %.0f calls/s, p50 %.3fms p99 %.3fms", res.Episodes, res.Conns, res.Calls, res.CallsPerSec, res.Latency.P50, res.Latency.P99)
	leaks := res.Leaks
	if res.Errors > 0 && len(leaks) > 0 && strings.HasPrefix(leaks[0], "first call error") {
		t.Logf("%d calls failed; the first: %s", res.Errors, leaks[0])
		leaks = leaks[1:]
	}
	if res.Transport != "socket" || res.Conns != o.Conns || res.Calls != o.Calls || res.Errors > o.Calls/100 || len(leaks) != 0 {
		t.Fatalf("transport %s conns %d calls %d errors %d leaks %v", res.Transport, res.Conns, res.Calls, res.Errors, res.Leaks)
	}
	if res.Server == nil || res.Server.Calls < o.Calls {
		t.Fatalf("the server counted %v calls, want %d or more", res.Server, o.Calls)
	}
}

// miniEnv is testdata/envs/mini, built and loaded, closed with the test.
func miniEnv(t *testing.T) *runtime.Env {
	t.Helper()
	b, err := compiler.Build(context.Background(), "../../testdata/envs/mini", compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env, err := runtime.LoadBundle(context.Background(), b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

func TestMain(m *testing.M) { testcache.Main(m) }
