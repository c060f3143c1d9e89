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
	"github.com/wasmenv/wasmenv/runtime"
)

// retailBenchCalls is one call of each of τ-bench retail's 16 tools, each
// one that succeeds (a write on a record in the state it needs).
var retailBenchCalls = []struct{ tool, args string }{
	{"calculate", `{"expression":"(1234.5 - 99.99) * 2 / 3"}`},
	{"cancel_pending_order", `{"order_id":"#W5918442","reason":"no longer needed"}`},
	{"exchange_delivered_order_items", `{"order_id":"#W2378156","item_ids":["4202497723"],"new_item_ids":["3374679624"],"payment_method_id":"credit_card_9513926"}`},
	{"find_user_id_by_email", `{"email":"yusuf.rossi7301@example.com"}`},
	{"find_user_id_by_name_zip", `{"first_name":"Yusuf","last_name":"Rossi","zip":"19122"}`},
	{"get_order_details", `{"order_id":"#W2378156"}`},
	{"get_product_details", `{"product_id":"6992792935"}`},
	{"get_user_details", `{"user_id":"yusuf_rossi_9620"}`},
	{"list_all_product_types", `{}`},
	{"modify_pending_order_address", `{"order_id":"#W5918442","address1":"1 Main St","address2":"","city":"Austin","state":"TX","country":"USA","zip":"78701"}`},
	{"modify_pending_order_items", `{"order_id":"#W6247578","item_ids":["3799046073"],"new_item_ids":["9612497925"],"payment_method_id":"credit_card_9513926"}`},
	{"modify_pending_order_payment", `{"order_id":"#W1080318","payment_method_id":"gift_card_3749819"}`},
	{"modify_user_address", `{"user_id":"yusuf_rossi_9620","address1":"1 Main St","address2":"","city":"Austin","state":"TX","country":"USA","zip":"78701"}`},
	{"return_delivered_order_items", `{"order_id":"#W2378156","item_ids":["4202497723"],"payment_method_id":"credit_card_9513926"}`},
	{"think", `{"thought":"the order is pending, so it can be cancelled"}`},
	{"transfer_to_human_agents", `{"summary":"the user wants a refund to another card"}`},
}

// BenchmarkTaubenchRetailPython times each of the Python port's 16 tools
// through the runtime (p50-ns/op) beside the same function under native
// CPython over dicts, τ-bench's own setting (testdata/native/bench_retail.py:
// native-p50-ns/op, and x-native, their ratio), and the Go port's same call
// (go-p50-ns/op). A write runs on a freshly reset episode each time, the
// reset outside the timing. reset-after-write times an episode's reset
// after the same write in both ports, interleaved in one run.
func BenchmarkTaubenchRetailPython(b *testing.B) {
	port := retailPort()
	py, goPort := loadRetail(b, port, true), loadRetail(b, port, false)
	ctx := context.Background()
	for _, c := range retailBenchCalls {
		b.Run(c.tool, func(b *testing.B) {
			write := strings.HasPrefix(c.tool, "cancel") || strings.HasPrefix(c.tool, "exchange") ||
				strings.HasPrefix(c.tool, "modify") || strings.HasPrefix(c.tool, "return")
			epPy, epGo := episode(b, py, ""), episode(b, goPort, "")
			args := []byte(c.args)
			qPy, qGo := quantiles{}, quantiles{}
			for b.Loop() {
				for _, side := range []struct {
					ep *runtime.Episode
					q  *quantiles
				}{{epPy, &qPy}, {epGo, &qGo}} {
					if write {
						b.StopTimer()
						if err := side.ep.Reset(); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					start := time.Now()
					r, err := side.ep.Call(ctx, c.tool, args)
					side.q.add(time.Since(start))
					if err != nil || r.IsError || strings.HasPrefix(r.Content, "Error") {
						b.Fatal(r, err)
					}
				}
			}
			p50 := qPy.p50()
			b.ReportMetric(p50, "p50-ns/op")
			b.ReportMetric(qGo.p50(), "go-p50-ns/op")
			n := 2000
			if write {
				n = 300
			}
			if ns, ok := nativeRetailNs(filepath.Join(port, "data"), c.tool, c.args, n); ok {
				b.ReportMetric(ns, "native-p50-ns/op")
				b.ReportMetric(p50/ns, "x-native")
			}
		})
	}
	b.Run("reset-after-write", func(b *testing.B) {
		epPy, epGo := episode(b, py, ""), episode(b, goPort, "")
		write := []byte(`{"order_id":"#W5918442","reason":"no longer needed"}`)
		qPy, qGo := quantiles{}, quantiles{}
		for b.Loop() {
			for _, side := range []struct {
				ep *runtime.Episode
				q  *quantiles
			}{{epPy, &qPy}, {epGo, &qGo}} {
				b.StopTimer()
				if r, err := side.ep.Call(ctx, "cancel_pending_order", write); err != nil || r.IsError || strings.HasPrefix(r.Content, "Error") {
					b.Fatal(r, err)
				}
				b.StartTimer()
				start := time.Now()
				if err := side.ep.Reset(); err != nil {
					b.Fatal(err)
				}
				side.q.add(time.Since(start))
			}
		}
		b.ReportMetric(qPy.p50(), "p50-ns/op")
		b.ReportMetric(qGo.p50(), "go-p50-ns/op")
		b.ReportMetric(qPy.p50()/qGo.p50(), "x-go")
	})
}

func retailPort() string {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	return filepath.Join(root, "envs", "taubench-retail")
}

// loadRetail loads the Go port, or the Python port: the Go port's env.yaml,
// schema and data with testdata/taubench-retail/tools/retail.py.
func loadRetail(b *testing.B, port string, python bool) *runtime.Env {
	dir := port
	if python {
		dir = b.TempDir()
		t := &testing.T{}
		for _, f := range []string{"env.yaml", "schema.sql", "data/users.json", "data/products.json", "data/orders.json"} {
			copyFile(t, filepath.Join(port, f), filepath.Join(dir, f))
		}
		copyFile(t, filepath.Join("testdata", "taubench-retail", "tools", "retail.py"), filepath.Join(dir, "tools", "retail.py"))
	}
	bun, err := compiler.Build(context.Background(), dir, compiler.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return load(b, bun)
}

func nativeRetailNs(dataDir, tool, args string, n int) (float64, bool) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return 0, false
	}
	out, err := exec.Command(py, filepath.Join("testdata", "native", "bench_retail.py"), dataDir, tool, args, strconv.Itoa(n)).Output()
	if err != nil {
		return 0, false
	}
	ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	return ns, err == nil
}
