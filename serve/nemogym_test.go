package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
)

// The NeMo Gym routes as NVIDIA-NeMo/Gym 07d6b0d07b22fcf530b4c211dae2ee23100428e4
// uses them: responses_api_agents/simple_agent/app.py posts the run request
// to /seed_session, each function call's parsed arguments to /<name> (the
// body it reads back goes to the model as the call's output, whatever the
// status), and the run request plus "response" to /verify, forwarding the
// cookies of the last answer each time; nemo_gym/base_resources_server.py
// has BaseVerifyResponse = the request's fields + reward; FastAPI answers
// {"detail": ...}.

type ngClient struct {
	t    *testing.T
	base string
	hc   *http.Client
	tok  string
}

func newNGClient(t *testing.T, ts *testServer, token string) *ngClient {
	jar, _ := cookiejar.New(nil)
	return &ngClient{t: t, base: ts.url + "/nemo-gym/mini/", hc: &http.Client{Jar: jar}, tok: token}
}

func (c *ngClient) post(path, body string) (int, http.Header, string) {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if c.tok != "" {
		req.Header.Set("Authorization", "Bearer "+c.tok)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func (c *ngClient) postJSON(path, body string) (int, map[string]any) {
	c.t.Helper()
	code, _, b := c.post(path, body)
	var m map[string]any
	if err := json.Unmarshal([]byte(b), &m); err != nil {
		c.t.Fatalf("POST %s: HTTP %d, not a JSON object: %q", path, code, b)
	}
	return code, m
}

const ngRun = `{"responses_create_params":{"input":[{"role":"user","content":"Store date under d."}]},"task":"put-d","seed":3}`

func ngVerifyBody(answer string) string {
	return `{"responses_create_params":{"input":[]},"response":{"id":"resp_1","object":"response","output":[` +
		`{"type":"function_call","name":"put","arguments":"{}","call_id":"c1"},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":` + toJSON(answer) + `}]}]},"task":"put-d"}`
}

func TestNeMoGymSessionFlow(t *testing.T) {
	ts := newTestServer(t, Options{})
	a, b := newNGClient(t, ts, ""), newNGClient(t, ts, "")

	for _, c := range []*ngClient{a, b} {
		code, hdr, body := c.post("seed_session", ngRun)
		if code != 200 || strings.TrimSpace(body) != "{}" || !strings.Contains(hdr.Get("Set-Cookie"), "wasmenv_nemo_gym_mini=ep_") {
			t.Fatalf("seed_session: HTTP %d %q %q", code, body, hdr.Get("Set-Cookie"))
		}
	}
	if n := ts.srv.Episodes(); n != 2 {
		t.Fatalf("%d episodes for two sessions", n)
	}
	// A tool answers with its output as the body, and the cookie again.
	code, hdr, body := a.post("put", `{"key":"d","value":"date","n":4}`)
	if code != 200 || body != "ok" || hdr.Get("Set-Cookie") == "" || hdr.Get("X-Wasmenv-Outcome") != "ok" {
		t.Fatalf("put: HTTP %d %q %v", code, body, hdr)
	}
	code, hdr, body = a.post("get", `{"key":"d"}`)
	if code != 200 || hdr.Get("Content-Type") != "application/json" || !strings.Contains(body, `"v":"date"`) {
		t.Fatalf("get: HTTP %d %q", code, body)
	}
	// Sessions are isolated: b's store has no d.
	code, hdr, body = b.post("get", `{"key":"d"}`)
	if code != 200 || !strings.HasPrefix(body, "Error: ") || hdr.Get("X-Wasmenv-Outcome") != "tool_error" {
		t.Fatalf("b's get d: HTTP %d %q", code, body)
	}
	// verify: the request's fields and the reward; the session ends.
	code, m := a.postJSON("verify", ngVerifyBody("Stored."))
	if code != 200 || m["reward"] != 1.0 || m["task"] != "put-d" || m["response"].(map[string]any)["id"] != "resp_1" || m["responses_create_params"] == nil {
		t.Fatalf("a's verify: HTTP %d %v", code, m)
	}
	code, m = b.postJSON("verify", ngVerifyBody(""))
	if code != 200 || m["reward"].(float64) >= 1.0 {
		t.Fatalf("b's verify: HTTP %d %v", code, m)
	}
	if n := ts.srv.Episodes(); n != 0 {
		t.Errorf("%d episodes after both sessions verified", n)
	}
	if code, m := a.postJSON("get", `{"key":"d"}`); code != 400 || !strings.Contains(m["detail"].(string), "seed_session") {
		t.Errorf("a tool call after verify: HTTP %d %v", code, m)
	}

	// A second seed_session on one cookie replaces its episode.
	a.post("seed_session", ngRun)
	a.post("put", `{"key":"z","value":"zed"}`)
	a.post("seed_session", ngRun)
	if n := ts.srv.Episodes(); n != 1 {
		t.Errorf("%d episodes after seeding one session twice", n)
	}
	if _, _, body := a.post("get", `{"key":"z"}`); !strings.HasPrefix(body, "Error: ") {
		t.Errorf("the reseeded session kept the old state: %q", body)
	}
}

func TestNeMoGymShapes(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := newNGClient(t, ts, "")
	detail := func(m map[string]any) map[string]any {
		t.Helper()
		d, ok := m["detail"].([]any)
		if !ok || len(d) != 1 {
			t.Fatalf("detail is not a list of one error: %v", m)
		}
		return d[0].(map[string]any)
	}
	locIs := func(d map[string]any, want ...string) bool {
		loc, _ := d["loc"].([]any)
		if len(loc) != len(want) {
			return false
		}
		for i := range want {
			if loc[i] != want[i] {
				return false
			}
		}
		return true
	}

	// No session yet.
	if code, m := c.postJSON("get", `{"key":"a"}`); code != 400 || !strings.Contains(m["detail"].(string), "seed_session") {
		t.Errorf("tool without a session: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("verify", ngVerifyBody("x")); code != 400 {
		t.Errorf("verify without a session: HTTP %d %v", code, m)
	}
	// Bodies FastAPI would refuse.
	if code, m := c.postJSON("seed_session", `{"task":`); code != 422 || detail(m)["type"] != "json_invalid" {
		t.Errorf("broken JSON: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("seed_session", `[1,2]`); code != 422 || detail(m)["type"] != "model_attributes_type" || !locIs(detail(m), "body") {
		t.Errorf("array body: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("seed_session", `{"seed":"x"}`); code != 422 || detail(m)["type"] != "int_type" || !locIs(detail(m), "body", "seed") {
		t.Errorf("string seed: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("seed_session", `{"task":7}`); code != 422 || !locIs(detail(m), "body", "task") {
		t.Errorf("number task: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("seed_session", `{"task":"nope"}`); code != 404 || !strings.Contains(m["detail"].(string), "nope") {
		t.Errorf("unknown task: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("seed_session", `{"seed":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`}`); code != 422 {
		t.Errorf("deep body: HTTP %d %v", code, m)
	}
	// NeMo Gym's task_id names a task when it is one of the bundle's.
	if code, _ := c.postJSON("seed_session", `{"task_id":"put-d","responses_create_params":{}}`); code != 200 {
		t.Fatalf("seed by task_id: HTTP %d", code)
	}
	c.post("put", `{"key":"d","value":"date","n":4}`)
	if code, m := c.postJSON("verify", `{"responses_create_params":{}}`); code != 422 || detail(m)["type"] != "missing" || !locIs(detail(m), "body", "response") {
		t.Errorf("verify without response: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("verify", `{"responses_create_params":{},"response":{"output":"x"}}`); code != 422 || !locIs(detail(m), "body", "response") {
		t.Errorf("verify with a malformed response: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("verify", `{"responses_create_params":{},"response":{"output":[]}}`); code != 200 || m["reward"] != 1.0 {
		t.Errorf("verify of a session seeded by task_id: HTTP %d %v", code, m)
	}

	c.post("seed_session", `{}`) // a session without a task
	if code, m := c.postJSON("nope", `{}`); code != 404 || m["detail"] != "Not Found" {
		t.Errorf("unknown tool: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("get", `{"key":5}`); code != 422 || detail(m)["type"] != "invalid_args" || !strings.HasPrefix(detail(m)["msg"].(string), "Error: ") {
		t.Errorf("bad arguments: HTTP %d %v", code, m)
	}
	if code, hdr, body := c.post("abuse", `{"mode":"panic"}`); code != 500 || hdr.Get("X-Wasmenv-Outcome") != "trap" || !strings.HasPrefix(body, "Error: ") {
		t.Errorf("environment failure: HTTP %d %q %v", code, body, hdr)
	}
	if code, m := c.postJSON("verify", ngVerifyBody("x")); code != 409 || !strings.Contains(m["detail"].(string), "task") {
		t.Errorf("verify without a task: HTTP %d %v", code, m)
	}
	code, _, _ := c.post("roll", ``) // an empty body is no arguments
	if code != 200 {
		t.Errorf("empty body: HTTP %d", code)
	}
	other := &ngClient{t: t, base: ts.url + "/nemo-gym/other/", hc: c.hc}
	if code, m := other.postJSON("seed_session", `{}`); code != 404 || m["detail"] != "Not Found" {
		t.Errorf("unknown environment: HTTP %d %v", code, m)
	}
}

// Under --clients a session cookie is no way into another client's episode.
func TestNeMoGymSessionsBelongToTheirClient(t *testing.T) {
	ts := newTestServer(t, Options{Clients: []Client{{Name: "alice", Token: "tok-a"}, {Name: "bob", Token: "tok-b"}}})
	alice := newNGClient(t, ts, "tok-a")
	if code, _, _ := alice.post("seed_session", ngRun); code != 200 {
		t.Fatalf("alice's seed: HTTP %d", code)
	}
	bob := newNGClient(t, ts, "tok-b")
	bob.hc.Jar = alice.hc.Jar // bob holds alice's cookie
	if code, m := bob.postJSON("get", `{"key":"a"}`); code != 400 {
		t.Errorf("bob with alice's cookie: HTTP %d %v", code, m)
	}
	if code, _, body := alice.post("get", `{"key":"a"}`); code != 200 || !strings.Contains(body, "apple") {
		t.Errorf("alice's own call: HTTP %d %q", code, body)
	}
	if code, _, _ := newNGClient(t, ts, "").post("seed_session", ngRun); code != 401 {
		t.Errorf("no token: HTTP %d", code)
	}
}

// NeMo Gym's ServerClient builds http://host:port/<path>: with NeMoGymRoot
// the routes of one environment are also at the root.
func TestNeMoGymRoot(t *testing.T) {
	ts := newTestServer(t, Options{NeMoGymRoot: "mini"})
	c := newNGClient(t, ts, "")
	c.base = ts.url + "/"
	if code, _, body := c.post("seed_session", ngRun); code != 200 || strings.TrimSpace(body) != "{}" {
		t.Fatalf("root seed_session: HTTP %d %q", code, body)
	}
	c.post("put", `{"key":"d","value":"date","n":4}`)
	if code, m := c.postJSON("verify", ngVerifyBody("ok")); code != 200 || m["reward"] != 1.0 {
		t.Fatalf("root verify: HTTP %d %v", code, m)
	}
	if code, m := ts.do("GET", "/", ""); code != 200 || m["status"] != "ok" {
		t.Errorf("liveness GET /: HTTP %d %v", code, m)
	}
	// The server's own root routes are still there.
	if code, m := ts.do("POST", "/reset", `{}`); code != 200 || m["observation"] == nil {
		t.Errorf("OpenEnv /reset under a NeMo Gym root: HTTP %d %v", code, m)
	}
	if _, err := New(ts.srv.envs, Options{NeMoGymRoot: "nope"}); err == nil {
		t.Error("a root naming no environment was accepted")
	}
}
