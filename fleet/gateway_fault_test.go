package fleet_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/fleet"
)

// startHandlerWorker runs a serving worker in this process with handler h.
func startHandlerWorker(t *testing.T, url string, h http.Handler) string {
	t.Helper()
	id := fleet.NewServeID()
	w := &fleet.ServeWorker{NC: connect(t, url), ID: id, Handler: h, Heartbeat: 100 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil {
			t.Errorf("serve worker: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return id
}

func startGateway(t *testing.T, url string, opts fleet.GatewayOptions) (*fleet.Gateway, gatewayClient) {
	t.Helper()
	gw, err := fleet.NewGateway(connect(t, url), opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(gw)
	t.Cleanup(func() { hs.Close(); gw.Close() })
	return gw, gatewayClient{t, hs.URL}
}

// A worker that is connected but never answers: a call on its episode
// ends after the gateway's timeout with episode_lost, not a hang, and the
// worker's request ends with it. The call waits until the gateway lists
// the worker: startHandlerWorker returns before the worker has subscribed,
// and a call sent before that is lost at once (no responders) without
// reaching the handler, which under load made the test fail. Nothing here
// depends on how fast the machine is: a hang is the test binary's timeout.
func TestGatewayWedgedWorkerIsLost(t *testing.T) {
	url := startServer(t)
	release := make(chan struct{})
	defer close(release)
	gaveUp := make(chan struct{})
	id := startHandlerWorker(t, url, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			close(gaveUp)
		}
	}))
	gw, c := startGateway(t, url, fleet.GatewayOptions{Timeout: 300 * time.Millisecond})
	for {
		// The worker beats only after its subscriptions are flushed to
		// the server: once the gateway has heard it, a call reaches it.
		if _, ok := gw.Workers()[id]; ok {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	code, m := c.do("POST", "/v1/episodes/ep_"+id+".00/call", `{"name":"get"}`)
	if code != http.StatusGone || errCode(m) != "episode_lost" {
		t.Errorf("wedged worker: %d %v", code, m)
	}
	<-gaveUp // the worker's request ends too when the gateway stops waiting
}

// What the gateway answers itself: clear 4xx/5xx JSON errors, never a
// hang, never a request sent to the wrong worker.
func TestGatewayOwnAnswers(t *testing.T) {
	url := startServer(t)
	gw, c := startGateway(t, url, fleet.GatewayOptions{MaxBodyBytes: 1024})

	// No worker at all.
	if code, m := c.do("GET", "/v1/envs", ""); code != http.StatusServiceUnavailable || errCode(m) != "no_workers" {
		t.Errorf("no workers: %d %v", code, m)
	}
	if code, m := c.do("POST", "/v1/episodes", `{}`); code != http.StatusServiceUnavailable || errCode(m) != "no_workers" {
		t.Errorf("create without workers: %d %v", code, m)
	}
	// An episode of a worker that never was is lost; an id no fleet
	// mints is unknown.
	if code, m := c.do("GET", "/v1/episodes/ep_0badc0de.11", ""); code != http.StatusGone || errCode(m) != "episode_lost" {
		t.Errorf("episode of no worker: %d %v", code, m)
	}
	for _, id := range []string{"ep_0123456789abcdef0123456789abcdef", "ep_..%2F..%2Fx", "nope"} {
		if code, m := c.do("GET", "/v1/episodes/"+id, ""); code != http.StatusNotFound || errCode(m) != "unknown_episode" {
			t.Errorf("id %q: %d %v", id, code, m)
		}
	}

	echo := startHandlerWorker(t, url, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Got-Auth", r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte(`{"method":"` + r.Method + `","uri":"` + r.URL.RequestURI() + `"}`))
	}))
	for len(gw.Workers()) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	// Method, path, query, status, headers and body travel both ways.
	req, _ := http.NewRequest("DELETE", c.url+"/v1/episodes/ep_"+echo+".42?x=1&y=%20", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot || resp.Header.Get("X-Got-Auth") != "Bearer s3cret" || resp.Header.Get("Wasmenv-Worker") != "" {
		t.Errorf("relayed answer: %d %v", resp.StatusCode, resp.Header)
	}
	code, m := c.do("DELETE", "/v1/episodes/ep_"+echo+".42?x=1&y=%20", "")
	if code != http.StatusTeapot || m["uri"] != "/v1/episodes/ep_"+echo+".42?x=1&y=%20" || m["method"] != "DELETE" {
		t.Errorf("relayed request: %d %v", code, m)
	}
	// A body over the limit, a WebSocket route without an upgrade, MCP's event stream.
	if code, m := c.do("POST", "/v1/episodes", `{"task":"`+strings.Repeat("x", 2000)+`"}`); code != http.StatusRequestEntityTooLarge || errCode(m) != "too_large" {
		t.Errorf("large body: %d %v", code, m)
	}
	for _, p := range []string{"/ws", "/mcp"} {
		if code, m := c.do("GET", p, ""); code != http.StatusUpgradeRequired || errCode(m) != "upgrade_required" {
			t.Errorf("GET %s: %d %v", p, code, m)
		}
	}
	if code, m := c.do("GET", "/v1/episodes/ep_"+echo+".42/mcp", ""); code != http.StatusMethodNotAllowed || errCode(m) != "not_supported" {
		t.Errorf("GET the event stream: %d %v", code, m)
	}
	if code, m := c.do("GET", "/health", ""); code != 200 || m["workers"] != 1.0 {
		t.Errorf("health: %d %v", code, m)
	}
}

// The gateway's own NATS connection gone says nothing about an episode:
// 503 unavailable, not episode_lost.
func TestGatewayWithoutNATSIsUnavailable(t *testing.T) {
	url := startServer(t)
	nc := connect(t, url)
	gw, err := fleet.NewGateway(nc, fleet.GatewayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(gw)
	defer hs.Close()
	nc.Close()
	c := gatewayClient{t, hs.URL}
	for _, p := range []string{"/v1/episodes/ep_0a1b2c3d.00", "/v1/envs"} {
		if code, m := c.do("GET", p, ""); code != http.StatusServiceUnavailable || errCode(m) != "unavailable" {
			t.Errorf("GET %s without NATS: %d %v", p, code, m)
		}
	}
}

// A full worker declines a create (429 capacity) and the next worker gets
// it; when every worker is full the client gets the 429. A client's quota
// (429 quota) is not a decline.
func TestGatewayFullWorkerDeclines(t *testing.T) {
	url := startServer(t)
	full := func(code string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"code":"` + code + `","message":"full"}}`))
		})
	}
	roomy := make(chan bool, 100)
	gw, c := startGateway(t, url, fleet.GatewayOptions{})
	startHandlerWorker(t, url, full("capacity"))
	startHandlerWorker(t, url, full("memory"))
	startHandlerWorker(t, url, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		roomy <- true
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"episodes":["x"]}`))
	}))
	for len(gw.Workers()) < 3 {
		time.Sleep(20 * time.Millisecond)
	}
	for i := range 6 {
		if code, m := c.do("POST", "/v1/episodes", `{}`); code != http.StatusCreated {
			t.Fatalf("create %d with one roomy worker: %d %v", i, code, m)
		}
	}
	if len(roomy) != 6 {
		t.Errorf("the roomy worker got %d creates, want 6", len(roomy))
	}

	url2 := startServer(t)
	gw2, c2 := startGateway(t, url2, fleet.GatewayOptions{})
	startHandlerWorker(t, url2, full("capacity"))
	startHandlerWorker(t, url2, full("capacity"))
	for len(gw2.Workers()) < 2 {
		time.Sleep(20 * time.Millisecond)
	}
	if code, m := c2.do("POST", "/reset", `{}`); code != http.StatusTooManyRequests || errCode(m) != "capacity" {
		t.Errorf("every worker full: %d %v", code, m)
	}

	url3 := startServer(t)
	gw3, c3 := startGateway(t, url3, fleet.GatewayOptions{})
	quota := make(chan bool, 10)
	startHandlerWorker(t, url3, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		quota <- true
		full("quota").ServeHTTP(w, r)
	}))
	startHandlerWorker(t, url3, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		quota <- true
		full("quota").ServeHTTP(w, r)
	}))
	for len(gw3.Workers()) < 2 {
		time.Sleep(20 * time.Millisecond)
	}
	if code, m := c3.do("POST", "/v1/episodes", `{}`); code != http.StatusTooManyRequests || errCode(m) != "quota" || len(quota) != 1 {
		t.Errorf("quota: %d %v, asked %d workers", code, m, len(quota))
	}
}
