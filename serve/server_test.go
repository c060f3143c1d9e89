package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/runtime"
)

// testServer is a real HTTP server on 127.0.0.1 serving the mini env.
type testServer struct {
	t     *testing.T
	srv   *Server
	url   string
	token string
}

func newTestServer(t *testing.T, o Options) *testServer {
	t.Helper()
	srv, err := New([]*runtime.Env{miniEnv(t)}, o)
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

// do sends a request and decodes a JSON answer into a map.
func (ts *testServer) do(method, path, body string) (int, map[string]any) {
	ts.t.Helper()
	code, b := ts.raw(context.Background(), method, path, body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		ts.t.Fatalf("%s %s: HTTP %d, body not JSON: %q", method, path, code, b)
	}
	return code, m
}

func (ts *testServer) raw(ctx context.Context, method, path, body string) (int, []byte) {
	ts.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, ts.url+path, strings.NewReader(body))
	if err != nil {
		ts.t.Fatal(err)
	}
	if ts.token != "" {
		req.Header.Set("Authorization", "Bearer "+ts.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// create makes a group and returns its episode ids.
func (ts *testServer) create(body string) []string {
	ts.t.Helper()
	code, m := ts.do("POST", "/v1/episodes", body)
	if code != http.StatusCreated {
		ts.t.Fatalf("create %s: HTTP %d %v", body, code, m)
	}
	var ids []string
	for _, id := range m["episodes"].([]any) {
		ids = append(ids, id.(string))
	}
	return ids
}

func TestEpisodeLifecycle(t *testing.T) {
	ts := newTestServer(t, Options{})
	code, m := ts.do("GET", "/v1/envs", "")
	if code != 200 || len(m["envs"].([]any)) != 1 {
		t.Fatalf("envs: %d %v", code, m)
	}
	env := m["envs"].([]any)[0].(map[string]any)
	if env["name"] != "mini" || len(env["tools"].([]any)) != 6 {
		t.Fatalf("env: %v", env)
	}
	code, m = ts.do("GET", "/v1/envs/mini/tasks", "")
	if code != 200 || len(m["tasks"].([]any)) != 3 {
		t.Fatalf("tasks: %d %v", code, m)
	}

	ids := ts.create(`{"task":"put-d","seed":3,"n":3}`)
	if len(ids) != 3 || ids[0] == ids[1] || len(ids[0]) != len("ep_")+32 {
		t.Fatalf("ids: %v", ids)
	}
	// The group is isolated: a write in one episode is not seen by another.
	code, m = ts.do("POST", "/v1/episodes/"+ids[0]+"/call", `{"name":"put","arguments":{"key":"d","value":"date","n":4}}`)
	if code != 200 || m["content"] != "ok" || m["is_error"] != false {
		t.Fatalf("put: %d %v", code, m)
	}
	_, m = ts.do("POST", "/v1/episodes/"+ids[1]+"/call", `{"name":"get","arguments":{"key":"d"}}`)
	if m["is_error"] != true {
		t.Fatalf("episode 1 sees episode 0's write: %v", m)
	}
	code, m = ts.do("GET", "/v1/episodes/"+ids[0]+"/diff", "")
	if code != 200 || !strings.Contains(toJSON(m["diff"]), `"date"`) || m["state_hash"] == "" {
		t.Fatalf("diff: %d %v", code, m)
	}
	code, m = ts.do("POST", "/v1/episodes/"+ids[0]+"/score", `{}`)
	if code != 200 || m["reward"] != 1.0 || m["all_passed"] != true {
		t.Fatalf("score: %d %v", code, m)
	}
	code, m = ts.do("POST", "/v1/episodes/"+ids[0]+"/reset", `{"seed":9}`)
	if code != 200 || m["seed"] != 9.0 {
		t.Fatalf("reset: %d %v", code, m)
	}
	_, m = ts.do("POST", "/v1/episodes/"+ids[0]+"/score", ``)
	if m["reward"] == 1.0 {
		t.Fatalf("reset kept the state: %v", m)
	}
	code, m = ts.do("GET", "/v1/episodes/"+ids[0], "")
	if code != 200 || m["task"] != "put-d" || m["group"] == "" {
		t.Fatalf("info: %d %v", code, m)
	}
	for _, id := range ids {
		if code, m := ts.do("DELETE", "/v1/episodes/"+id, ""); code != 200 {
			t.Fatalf("delete: %d %v", code, m)
		}
	}
	if code, _ := ts.do("DELETE", "/v1/episodes/"+ids[0], ""); code != 404 {
		t.Fatalf("second delete: %d", code)
	}
	if code, _ := ts.do("POST", "/v1/episodes/"+ids[0]+"/call", `{"name":"get"}`); code != 404 {
		t.Fatalf("call on deleted: %d", code)
	}
	if n := ts.srv.Episodes(); n != 0 {
		t.Fatalf("%d episodes left", n)
	}
	_, m = ts.do("GET", "/stats", "")
	if m["calls"].(float64) < 2 || m["episodes_deleted"] != 3.0 {
		t.Fatalf("stats: %v", m)
	}
}

func TestStep(t *testing.T) {
	ts := newTestServer(t, Options{})
	ids := ts.create(`{"task":"delete-a","max_steps":3}`)
	p := "/v1/episodes/" + ids[0] + "/step"
	code, m := ts.do("POST", p, `{"action":{"name":"get","arguments":{"key":"a"}}}`)
	if code != 200 || m["reward"] != 0.0 || m["terminated"] != false || !strings.Contains(m["observation"].(string), "avocado") {
		t.Fatalf("step 1: %d %v", code, m)
	}
	_, m = ts.do("POST", p, `{"action":{"name":"delete","arguments":{"keys":["a"]}}}`)
	if m["terminated"] != false || m["truncated"] != false {
		t.Fatalf("step 2: %v", m)
	}
	code, m = ts.do("POST", p, `{"action":{"type":"final","answer":"it was avocado"}}`)
	if code != 200 || m["terminated"] != true || m["reward"] != 1.0 {
		t.Fatalf("final: %d %v", code, m)
	}
	if code, m := ts.do("POST", p, `{"action":{"name":"get","arguments":{"key":"b"}}}`); code != 409 {
		t.Fatalf("step after the end: %d %v", code, m)
	}
	ts.do("POST", "/v1/episodes/"+ids[0]+"/reset", ``)
	// Truncation at max_steps scores without an answer.
	for i := 1; i <= 3; i++ {
		_, m = ts.do("POST", p, `{"action":{"name":"get","arguments":{"key":"b"}}}`)
	}
	info := m["info"].(map[string]any)
	if m["truncated"] != true || info["score"] == nil || m["reward"].(float64) >= 1 {
		t.Fatalf("truncation: %v", m)
	}
}

func TestToolErrorsAre200(t *testing.T) {
	ts := newTestServer(t, Options{})
	id := ts.create(``)[0]
	for _, body := range []string{
		`{"name":"nope"}`,
		`{"name":""}`,
		`{"name":"get","arguments":{"key":5}}`,
		`{"name":"get","arguments":{"key":"a","extra":1}}`,
		`{"name":"get","arguments":[1,2]}`,
		`{"name":"get","arguments":"not json"}`,
		`{"name":"get","arguments":42}`,
		`{"name":"get"}`,
		`{"name":"abuse","arguments":{"mode":"panic"}}`,
		`{"name":"abuse","arguments":{"mode":"huge"}}`,
	} {
		code, m := ts.do("POST", "/v1/episodes/"+id+"/call", body)
		if code != 200 || m["is_error"] != true || !strings.HasPrefix(m["content"].(string), "Error: ") {
			t.Errorf("%s: HTTP %d %v", body, code, m)
		}
	}
	// Arguments as a JSON string, the chat-completions tool_calls form.
	code, m := ts.do("POST", "/v1/episodes/"+id+"/call", `{"name":"get","arguments":"{\"key\":\"a\"}"}`)
	if code != 200 || m["is_error"] != false {
		t.Errorf("string arguments: %d %v", code, m)
	}
}

func TestClientMistakes(t *testing.T) {
	ts := newTestServer(t, Options{MaxBodyBytes: 4096, MaxJSONDepth: 8, MaxGroup: 4})
	id := ts.create(``)[0]
	call := "/v1/episodes/" + id + "/call"
	cases := []struct {
		method, path, body string
		want               int
	}{
		{"POST", call, `{"name":`, 400},
		{"POST", call, `{"name":"get"}}`, 400},
		{"POST", call, `{"name":"get"} {}`, 400},
		{"POST", call, `[]`, 400},
		{"POST", call, `"x"`, 400},
		{"POST", call, `{"name":5}`, 400},
		{"POST", call, `{"name":"get","bogus":1}`, 400},
		{"POST", call, `{"name":"get","arguments":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`, 400},
		{"POST", call, `{"name":"get","arguments":{"key":"` + strings.Repeat("x", 5000) + `"}}`, 413},
		{"POST", "/v1/episodes/ep_nope/call", `{"name":"get"}`, 404},
		{"POST", "/v1/episodes/ep_nope/step", `{"action":{"name":"get"}}`, 404},
		{"POST", "/v1/episodes/ep_nope/score", ``, 404},
		{"POST", "/v1/episodes/ep_nope/reset", ``, 404},
		{"GET", "/v1/episodes/ep_nope/diff", ``, 404},
		{"GET", "/v1/episodes/ep_nope", ``, 404},
		{"DELETE", "/v1/episodes/ep_nope", ``, 404},
		{"POST", "/v1/episodes/ep_nope/mcp", `{}`, 404},
		{"GET", "/v1/envs/nope/tasks", ``, 404},
		{"POST", "/v1/episodes", `{"env":"nope"}`, 404},
		{"POST", "/v1/episodes", `{"task":"nope"}`, 404},
		{"POST", "/v1/episodes", `{"n":5}`, 400},
		{"POST", "/v1/episodes", `{"n":-1}`, 400},
		{"POST", "/v1/episodes", `{"n":"2"}`, 400},
		{"POST", "/v1/episodes", `{"seed":1.5}`, 400},
		{"POST", "/v1/episodes", `{"seed":99999999999999999999}`, 400},
		{"POST", "/v1/episodes/" + id + "/step", `{}`, 400},
		{"POST", "/v1/episodes/" + id + "/step", `{"action":{}}`, 400},
		{"POST", "/v1/episodes/" + id + "/step", `{"action":{"type":"dance"}}`, 400},
		{"POST", "/v1/episodes/" + id + "/step", `{"action":"get"}`, 400},
		{"POST", "/v1/episodes/" + id + "/score", `{}`, 409},
		{"POST", "/v1/episodes/" + id + "/score", `{"answer":3}`, 400},
		{"POST", "/v1/episodes/" + id + "/reset", `{"seed":"x"}`, 400},
		{"GET", "/v1/episodes/" + id + "/call", ``, 404},
		{"GET", "/nope", ``, 404},
		{"POST", "/step", `{}`, 422},
		{"POST", "/step", `{"action":{"type":"call_tool"}}`, 422},
		{"POST", "/step", `{"action":{},"episode_id":"ep_nope"}`, 404},
		{"GET", "/state?episode_id=ep_nope", ``, 404},
		{"POST", "/reset", `{"task":"nope"}`, 404},
	}
	for _, c := range cases {
		code, b := ts.raw(context.Background(), c.method, c.path, c.body)
		var m map[string]map[string]string
		if err := json.Unmarshal(b, &m); err != nil || m["error"]["message"] == "" || m["error"]["code"] == "" {
			t.Errorf("%s %s %.60s: body is not a JSON error: %q", c.method, c.path, c.body, b)
		}
		if code != c.want {
			t.Errorf("%s %s %.60s: HTTP %d, want %d: %s", c.method, c.path, c.body, code, c.want, b)
		}
	}
	if st := ts.srv.Stats(); st.Panics != 0 {
		t.Fatalf("%d panics", st.Panics)
	}
}

func TestConcurrentCallsOnOneEpisode(t *testing.T) {
	ts := newTestServer(t, Options{})
	id := ts.create(``)[0]
	const workers, each = 8, 20
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				body := `{"name":"put","arguments":{"key":"k` + itoa(w) + "_" + itoa(i) + `","value":"v"}}`
				code, b := ts.raw(context.Background(), "POST", "/v1/episodes/"+id+"/call", body)
				if code != 200 || !bytes.Contains(b, []byte(`"is_error":false`)) {
					t.Errorf("put: %d %s", code, b)
				}
			}
		}()
	}
	wg.Wait()
	_, m := ts.do("GET", "/v1/episodes/"+id+"/diff", "")
	if n := len(m["diff"].(map[string]any)["kv"].(map[string]any)); n != workers*each {
		t.Fatalf("%d keys written, want %d", n, workers*each)
	}
}

func TestClientDisconnectMidCall(t *testing.T) {
	ts := newTestServer(t, Options{})
	id := ts.create(``)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	// abuse loop runs until stopped: by the client going away here, long
	// before the environment's 500ms call_timeout.
	code, _ := ts.raw(ctx, "POST", "/v1/episodes/"+id+"/call", `{"name":"abuse","arguments":{"mode":"loop"}}`)
	if code != 0 {
		t.Fatalf("the request was not cut: HTTP %d", code)
	}
	// The episode is usable again once the server has stopped the call.
	code, m := ts.do("POST", "/v1/episodes/"+id+"/call", `{"name":"get","arguments":{"key":"a"}}`)
	if code != 200 || m["is_error"] != false {
		t.Fatalf("after disconnect: %d %v", code, m)
	}
	if d := time.Since(start); d > 450*time.Millisecond {
		t.Fatalf("the call ran on for %v after the client left", d)
	}
}

func TestTokenAuth(t *testing.T) {
	ts := newTestServer(t, Options{Token: "s3cret"})
	for _, h := range []string{"", "Bearer wrong", "Basic s3cret", "Bearer s3cret"} {
		req, _ := http.NewRequest("GET", ts.url+"/v1/envs", nil)
		if h != "" {
			req.Header.Set("Authorization", h)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := 401
		if h == "Bearer s3cret" {
			want = 200
		}
		if resp.StatusCode != want {
			t.Errorf("%q: HTTP %d, want %d", h, resp.StatusCode, want)
		}
	}
	resp, err := http.Get(ts.url + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health needs no token: %v %v", resp, err)
	}
	resp.Body.Close()
}

func TestCapacity(t *testing.T) {
	ts := newTestServer(t, Options{MaxEpisodes: 3})
	ids := ts.create(`{"n":2}`)
	code, b := ts.raw(context.Background(), "POST", "/v1/episodes", `{"n":2}`)
	if code != 429 || !bytes.Contains(b, []byte("capacity")) {
		t.Fatalf("over capacity: %d %s", code, b)
	}
	req, _ := http.NewRequest("POST", ts.url+"/v1/episodes", strings.NewReader(`{"n":2}`))
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	ts.do("DELETE", "/v1/episodes/"+ids[0], "")
	ts.create(`{"n":2}`)
	if code, _ := ts.do("POST", "/reset", `{}`); code != 429 {
		t.Fatalf("OpenEnv reset over capacity: %d", code)
	}
}

func TestIdleReaping(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: 200 * time.Millisecond})
	ids := ts.create(`{"n":2}`)
	deadline := time.Now().Add(600 * time.Millisecond)
	for time.Now().Before(deadline) { // keep ids[1] busy
		ts.do("POST", "/v1/episodes/"+ids[1]+"/call", `{"name":"get","arguments":{"key":"a"}}`)
		time.Sleep(20 * time.Millisecond)
	}
	if code, _ := ts.do("GET", "/v1/episodes/"+ids[0], ""); code != 404 {
		t.Fatalf("idle episode not reaped: %d", code)
	}
	if code, _ := ts.do("GET", "/v1/episodes/"+ids[1], ""); code != 200 {
		t.Fatalf("busy episode reaped: %d", code)
	}
	if st := ts.srv.Stats(); st.Reaped != 1 {
		t.Fatalf("reaped %d", st.Reaped)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
