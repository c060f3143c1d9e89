package pywasm_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/compiler"
)

// BenchmarkTaubenchRetailPython times the Python port's tools through the
// runtime and reports the same function under native CPython over dicts,
// τ-bench's own setting (testdata/native/bench_retail.py), as
// native-ns/op; and the reset of an episode after a write.
func BenchmarkTaubenchRetailPython(b *testing.B) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	port := filepath.Join(root, "envs", "taubench-retail")
	dir := b.TempDir()
	t := &testing.T{}
	for _, f := range []string{"env.yaml", "schema.sql", "data/users.json", "data/products.json", "data/orders.json"} {
		copyFile(t, filepath.Join(port, f), filepath.Join(dir, f))
	}
	copyFile(t, filepath.Join("testdata", "taubench-retail", "tools", "retail.py"), filepath.Join(dir, "tools", "retail.py"))
	bun, err := compiler.Build(context.Background(), dir, compiler.Options{})
	if err != nil {
		b.Fatal(err)
	}
	e := load(b, bun)
	cases := []struct{ name, tool, args string }{
		{"point-read", "get_order_details", `{"order_id":"#W2378156"}`},
		{"user-read", "get_user_details", `{"user_id":"yusuf_rossi_9620"}`},
		{"write", "modify_pending_order_address", `{"order_id":"#W5918442","address1":"1 Main St","address2":"","city":"Austin","state":"TX","country":"USA","zip":"78701"}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ep := episode(b, e, "")
			args := []byte(c.args)
			q := quantiles{}
			for b.Loop() {
				start := time.Now()
				r, err := ep.Call(context.Background(), c.tool, args)
				q.add(time.Since(start))
				if err != nil || r.IsError || strings.HasPrefix(r.Content, "Error") {
					b.Fatal(r, err)
				}
			}
			q.report(b)
			if ns, ok := nativeRetailNs(filepath.Join(port, "data"), c.tool, c.args); ok {
				b.ReportMetric(ns, "native-ns/op")
			}
		})
	}
	b.Run("reset-after-write", func(b *testing.B) {
		ep := episode(b, e, "")
		for b.Loop() {
			b.StopTimer()
			if r := call(b, ep, "cancel_pending_order", `{"order_id":"#W5918442","reason":"no longer needed"}`); r.IsError || strings.HasPrefix(r.Content, "Error") {
				b.Fatal(r)
			}
			b.StartTimer()
			if err := ep.Reset(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func nativeRetailNs(dataDir, tool, args string) (float64, bool) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return 0, false
	}
	n := "2000"
	if strings.HasPrefix(tool, "modify") {
		n = "50"
	}
	out, err := exec.Command(py, filepath.Join("testdata", "native", "bench_retail.py"), dataDir, tool, args, n).Output()
	if err != nil {
		return 0, false
	}
	ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	return ns, err == nil
}
