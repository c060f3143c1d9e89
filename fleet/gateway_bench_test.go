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

	"github.com/coder/websocket"

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
	directURL, gatewayURL := benchGateway(b)
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
	json.Unmarshal(post(gatewayURL, "/v1/episodes", `{}`), &created)
	call := "/v1/episodes/" + created.Episodes[0] + "/call"
	post(gatewayURL, call, `{"name":"put","arguments":{"key":"k","value":"v"}}`)
	get := `{"name":"get","arguments":{"key":"k"}}`

	var d, g, diff []float64
	for b.Loop() {
		t0 := time.Now()
		post(directURL, call, get)
		t1 := time.Now()
		post(gatewayURL, call, get)
		t2 := time.Now()
		dd, gg := float64(t1.Sub(t0).Microseconds()), float64(t2.Sub(t1).Microseconds())
		d, g, diff = append(d, dd), append(g, gg), append(diff, gg-dd)
	}
	reportOverhead(b, d, g, diff)
}

// reportOverhead reports the p50 of direct and gateway times and of their
// per-iteration difference.
func reportOverhead(b *testing.B, d, g, diff []float64) {
	q := func(x []float64, f float64) float64 { slices.Sort(x); return x[int(f*float64(len(x)-1))] }
	b.ReportMetric(q(d, 0.5), "µs-p50-direct")
	b.ReportMetric(q(g, 0.5), "µs-p50-gateway")
	b.ReportMetric(q(diff, 0.5), "µs-p50-overhead")
	b.ReportMetric(q(diff, 0.9), "µs-p90-overhead")
}

// BenchmarkGatewaySocketOverhead is BenchmarkGatewayOverhead for a
// WebSocket: one /ws session straight to the server and one through the
// gateway, each a reset episode, step (mini's get) alternately.
func BenchmarkGatewaySocketOverhead(b *testing.B) {
	directURL, gatewayURL := benchGateway(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(base string) func() {
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.CloseNow() })
		rt := func(msg string) {
			if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
				b.Fatal(err)
			}
			if _, m, err := c.Read(ctx); err != nil || !strings.Contains(string(m), `"observation"`) {
				b.Fatalf("%s: %v %s", msg, err, m)
			}
		}
		rt(`{"type":"reset","data":{}}`)
		rt(`{"type":"step","data":{"type":"call_tool","tool_name":"put","arguments":{"key":"k","value":"v"}}}`)
		return func() { rt(`{"type":"step","data":{"type":"call_tool","tool_name":"get","arguments":{"key":"k"}}}`) }
	}
	direct, through := open(directURL), open(gatewayURL)
	var d, g, diff []float64
	for b.Loop() {
		t0 := time.Now()
		direct()
		t1 := time.Now()
		through()
		t2 := time.Now()
		dd, gg := float64(t1.Sub(t0).Microseconds()), float64(t2.Sub(t1).Microseconds())
		d, g, diff = append(d, dd), append(g, gg), append(diff, gg-dd)
	}
	reportOverhead(b, d, g, diff)
}

// benchGateway serves mini from one serve.Server straight over HTTP and
// as a worker behind a gateway (embedded NATS, loopback), until b ends.
func benchGateway(b *testing.B) (directURL, gatewayURL string) {
	url := startServer(b)
	mini := miniBundleFile(b)
	env, err := runtime.Load(context.Background(), mini, runtime.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { env.Close() })
	id := fleet.NewServeID()
	srv, err := serve.New([]*runtime.Env{env}, serve.Options{IDPrefix: id + "."})
	if err != nil {
		b.Fatal(err)
	}
	direct := httptest.NewServer(srv.Handler())
	w := &fleet.ServeWorker{NC: connect(b, url), ID: id, Handler: srv.Handler(), Episodes: srv.Episodes}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	gw, err := fleet.NewGateway(connect(b, url), fleet.GatewayOptions{})
	if err != nil {
		b.Fatal(err)
	}
	gws := httptest.NewServer(gw)
	b.Cleanup(func() {
		gws.Close()
		gw.Close()
		cancel()
		<-done
		direct.Close()
		srv.Close()
	})
	for len(gw.Workers()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	return direct.URL, gws.URL
}
