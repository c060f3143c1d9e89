package runtime

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmenv/wasmenv/compiler"
)

// guestCounter counts guest function calls by kind while a listener is
// installed.
type guestCounter struct {
	calls, mallocs, memmoves, strings atomic.Int64
}

func (c *guestCounter) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	var extra *atomic.Int64
	switch guestFuncName(def) {
	case "runtime.mallocgc":
		extra = &c.mallocs
	case "runtime.memmove":
		extra = &c.memmoves
	case "runtime.slicebytetostring":
		extra = &c.strings
	}
	return experimental.FunctionListenerFunc(func(context.Context, api.Module, api.FunctionDefinition, []uint64, experimental.StackIterator) {
		c.calls.Add(1)
		if extra != nil {
			extra.Add(1)
		}
	})
}

// BenchmarkGuestWork counts what the guest does per tool call: wasm
// function calls, mallocgc, memmove and slicebytetostring. The counts do
// not depend on the machine's load (the times here do, and include the
// listener's overhead: read them as counts only).
func BenchmarkGuestWork(b *testing.B) {
	dir := filepath.Join("..", "bench", "testdata", "benchenv")
	bundle, err := compiler.Build(context.Background(), dir, compiler.Options{KeepNames: true})
	if err != nil {
		b.Fatal(err)
	}
	var c guestCounter
	guestListener = &c
	e, err := LoadBundle(context.Background(), bundle, Options{})
	guestListener = nil
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ep := newEpisode(b, e, "", 1)
	for _, tc := range []struct{ name, tool, args string }{
		{"read", "get_order", `{"order_id":1234}`},
		{"write", "set_order_status", `{"order_id":1234,"status":"shipped"}`},
		{"list", "list_orders", `{"user_id":42,"limit":10}`},
	} {
		args := []byte(tc.args)
		b.Run(tc.name, func(b *testing.B) {
			benchCall(b, ep, tc.tool, args) // warm: first-use allocations
			c.calls.Store(0)
			c.mallocs.Store(0)
			c.memmoves.Store(0)
			c.strings.Store(0)
			n := 0
			for b.Loop() {
				benchCall(b, ep, tc.tool, args)
				n++
			}
			b.ReportMetric(float64(c.calls.Load())/float64(n), "wasm-calls/op")
			b.ReportMetric(float64(c.mallocs.Load())/float64(n), "mallocgc/op")
			b.ReportMetric(float64(c.memmoves.Load())/float64(n), "memmove/op")
			b.ReportMetric(float64(c.strings.Load())/float64(n), "bytestring/op")
		})
	}
}

// guestFuncName is a function's name in the Go toolchain's name section.
func guestFuncName(def api.FunctionDefinition) string {
	if n := def.Name(); n != "" {
		return n
	}
	return def.DebugName()
}
