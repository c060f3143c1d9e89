package serve

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"
)

// One definition of a tool call on a busy episode (issue 38 item 7): the
// episode API and NeMo Gym (which once took the lock by hand, and did not
// count the call) give the timeout outcome after the call timeout and
// count the call alike.
func TestBusyEpisodeOneRule(t *testing.T) {
	ts := newTestServer(t, Options{CallTimeout: 50 * time.Millisecond, IdleTimeout: -1})
	hold := func(id string) func() {
		t.Helper()
		e := ts.srv.table.get(id)
		if e == nil || e.acquire(context.Background()) != nil {
			t.Fatalf("episode %s", id)
		}
		return e.release
	}
	id := ts.create(`{"task":"put-d"}`)[0]
	release := hold(id)
	before := ts.srv.Stats().Calls
	code, m := ts.do("POST", "/v1/episodes/"+id+"/call", `{"name":"get","arguments":{"key":"a"}}`)
	if code != 200 || m["outcome"] != "timeout" {
		t.Fatalf("/call on a busy episode: HTTP %d %v", code, m)
	}
	release()
	if got := ts.srv.Stats().Calls - before; got != 1 {
		t.Errorf("/call: %d calls counted, want 1", got)
	}

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	post := func(path, body string) *http.Response {
		t.Helper()
		resp, err := c.Post(ts.url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	post("/nemo-gym/mini/seed_session", `{"task":"put-d"}`)
	var ngID string
	ts.srv.table.mu.RLock()
	for eid := range ts.srv.table.eps {
		if eid != id {
			ngID = eid
		}
	}
	ts.srv.table.mu.RUnlock()
	release = hold(ngID)
	before = ts.srv.Stats().Calls
	resp := post("/nemo-gym/mini/get", `{"key":"a"}`)
	release()
	if resp.StatusCode != http.StatusInternalServerError || resp.Header.Get("X-Wasmenv-Outcome") != "timeout" { // NeMo Gym: an environment failure is a 500
		t.Fatalf("NeMo Gym tool on a busy episode: HTTP %d outcome %q", resp.StatusCode, resp.Header.Get("X-Wasmenv-Outcome"))
	}
	if got := ts.srv.Stats().Calls - before; got != 1 {
		t.Errorf("NeMo Gym: %d calls counted, want 1", got)
	}
}
