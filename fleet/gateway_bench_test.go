package fleet_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/serve"
)

// BenchmarkGatewayOverhead measures what the gateway adds to one call: the
// same serve.Server and episode answer a tool call (mini's get) straight
// over HTTP and through gateway -> NATS (embedded, loopback) -> worker,
// alternately in each iteration so that drift hits both alike. It reports
// the p50 of each and of their difference per iteration, the NATS overhead.
func BenchmarkGatewayOverhead(b *testing.B) {
	url := startServer(b)
	mini := miniBundleFile(b)
	env, err := runtime.Load(context.Background(), mini, runtime.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	id := fleet.NewServeID()
	srv, err := serve.New([]*runtime.Env{env}, serve.Options{IDPrefix: id + "."})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	direct := httptest.NewServer(srv.Handler())
	defer direct.Close()
	w := &fleet.ServeWorker{NC: connect(b, url), ID: id, Handler: srv.Handler(), Episodes: srv.Episodes}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	gw, err := fleet.NewGateway(connect(b, url), fleet.GatewayOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer gw.Close()
	gws := httptest.NewServer(gw)
	defer gws.Close()
	for len(gw.Workers()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}

	post := func(base, path, body string) []byte {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			b.Fatalf("%s: %d %s", path, resp.StatusCode, out)
		}
		return out
	}
	var created struct{ Episodes []string }
	json.Unmarshal(post(gws.URL, "/v1/episodes", `{}`), &created)
	call := "/v1/episodes/" + created.Episodes[0] + "/call"
	post(gws.URL, call, `{"name":"put","arguments":{"key":"k","value":"v"}}`)
	get := `{"name":"get","arguments":{"key":"k"}}`

	var d, g, diff []float64
	for b.Loop() {
		t0 := time.Now()
		post(direct.URL, call, get)
		t1 := time.Now()
		post(gws.URL, call, get)
		t2 := time.Now()
		dd, gg := float64(t1.Sub(t0).Microseconds()), float64(t2.Sub(t1).Microseconds())
		d, g, diff = append(d, dd), append(g, gg), append(diff, gg-dd)
	}
	q := func(x []float64, f float64) float64 { slices.Sort(x); return x[int(f*float64(len(x)-1))] }
	b.ReportMetric(q(d, 0.5), "µs-p50-direct")
	b.ReportMetric(q(g, 0.5), "µs-p50-gateway")
	b.ReportMetric(q(diff, 0.5), "µs-p50-overhead")
	b.ReportMetric(q(diff, 0.9), "µs-p90-overhead")
}
