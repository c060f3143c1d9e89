package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/runtime"
)

// miniEnvWith loads the mini environment with runtime options.
func miniEnvWith(t testing.TB, o runtime.Options) *runtime.Env {
	t.Helper()
	miniEnv(t) // builds the bundle once
	e, err := runtime.LoadBundle(context.Background(), miniBundle, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func newTestServerFor(t *testing.T, env *runtime.Env, o Options) *testServer {
	t.Helper()
	srv, err := New([]*runtime.Env{env}, o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return &testServer{t: t, srv: srv, url: hs.URL, token: o.Token}
}

// fill writes n values of size bytes through the honest put tool.
func (ts *testServer) fill(id string, n, size int) {
	ts.t.Helper()
	v := strings.Repeat("x", size)
	for i := range n {
		body, _ := json.Marshal(map[string]any{"name": "put", "arguments": map[string]any{"key": "big" + itoa(i), "value": v}})
		if code, m := ts.do("POST", "/v1/episodes/"+id+"/call", string(body)); code != 200 || m["is_error"] == true {
			ts.t.Fatalf("put %d: HTTP %d %v", i, code, m)
		}
	}
}

// Issue 13 item 1: a diff that runs SQLite out of memory used to panic
// inside the handler, which left the episode locked for good: every later
// request waited for the lock and got 503, DELETE answered 200 without
// closing it, the reaper could not take it. Now the diff is a clean error,
// every route still answers, and the episode can be reset or deleted.
func TestOutOfMemoryDoesNotWedgeTheEpisode(t *testing.T) {
	ts := newTestServerFor(t, miniEnvWith(t, runtime.Options{SQLMemoryMB: 8}),
		Options{CallTimeout: 2 * time.Second, IdleTimeout: -1})
	id := ts.create(`{"task":"put-d"}`)[0]
	ts.fill(id, 40, 600_000)

	code, m := ts.do("GET", "/v1/episodes/"+id+"/diff", "")
	if code == http.StatusOK || code == http.StatusInternalServerError {
		t.Fatalf("diff of 24 MB under an 8 MiB SQLite heap: HTTP %d %v", code, m)
	}
	t.Logf("diff: HTTP %d %v", code, m)
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v1/episodes/" + id, ""},
		{"GET", "/state?episode_id=" + id, ""},
		{"GET", "/v1/episodes/" + id + "/diff", ""},
		{"POST", "/v1/episodes/" + id + "/score", "{}"},
		{"POST", "/v1/episodes/" + id + "/call", `{"name":"get","arguments":{"key":"a"}}`},
		{"POST", "/v1/episodes/" + id + "/step", `{"action":{"name":"get","arguments":{"key":"a"}}}`},
	} {
		code, m := ts.do(r.method, r.path, r.body)
		if code == http.StatusServiceUnavailable || code == http.StatusInternalServerError {
			t.Errorf("%s %s after the out-of-memory diff: HTTP %d %v", r.method, r.path, code, m)
		}
	}
	if code, m := ts.do("POST", "/v1/episodes/"+id+"/reset", "{}"); code != 200 {
		t.Fatalf("reset: HTTP %d %v", code, m)
	}
	if code, m := ts.do("POST", "/v1/episodes/"+id+"/call", `{"name":"get","arguments":{"key":"a"}}`); code != 200 || m["is_error"] == true {
		t.Fatalf("call after reset: HTTP %d %v", code, m)
	}
	ts.fill(id, 40, 600_000)
	ts.do("GET", "/v1/episodes/"+id+"/diff", "")
	if code, m := ts.do("DELETE", "/v1/episodes/"+id, ""); code != 200 {
		t.Fatalf("delete: HTTP %d %v", code, m)
	}
	if n := ts.srv.Episodes(); n != 0 {
		t.Fatalf("%d episodes left after delete", n)
	}
	if p := ts.srv.Stats(); p.Panics != 0 {
		t.Fatalf("%d handler panics", p.Panics)
	}
}
