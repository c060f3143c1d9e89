package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// oeSchema compiles one of GET /schema's schemas, as served.
func oeSchema(t *testing.T, ts *testServer, name string) *jsonschema.Schema {
	t.Helper()
	code, b := ts.raw(context.Background(), "GET", "/schema", "")
	if code != 200 {
		t.Fatalf("/schema: %d %s", code, b)
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(t, all[name])))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("oe:///"+name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("oe:///" + name)
	if err != nil {
		t.Fatalf("/schema %s does not compile: %v", name, err)
	}
	return s
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// conforms checks v against a schema served by /schema.
func conforms(t *testing.T, s *jsonschema.Schema, what string, v any) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(t, v)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s does not match GET /schema: %v\n%s", what, err, mustJSON(t, v))
	}
}

// oeCase is one call_tool action and what OpenEnv's CallToolObservation
// must say about it.
type oeCase struct {
	name      string
	action    string
	errorType string // "" when the answer is in result
	isError   bool   // result.is_error
	outcome   runtime.Outcome
	text      string // in result's text or error's message
}

var oeCases = []oeCase{
	{"ok", `{"type":"call_tool","tool_name":"put","arguments":{"key":"z","value":"zed"}}`, "", false, runtime.OutcomeOK, "ok"},
	{"tool error", `{"type":"call_tool","tool_name":"get","arguments":{"key":"nope"}}`, "", true, runtime.OutcomeToolError, `Error: key "nope" not found`},
	{"unknown tool", `{"type":"call_tool","tool_name":"get_membr","arguments":{}}`, oeToolNotFound, false, runtime.OutcomeUnknownTool, `unknown tool "get_membr"`},
	{"schema failure", `{"type":"call_tool","tool_name":"get","arguments":{"key":7}}`, oeInvalidArgs, false, runtime.OutcomeInvalidArgs, "invalid arguments for get"},
	{"malformed JSON", `{"type":"call_tool","tool_name":"get","arguments":"{\"key\":"}`, oeInvalidArgs, false, runtime.OutcomeInvalidArgs, "not valid JSON"},
	{"call deadline", `{"type":"call_tool","tool_name":"abuse","arguments":{"mode":"loop"}}`, oeTimeout, false, runtime.OutcomeTimeout, ""},
	{"panic", `{"type":"call_tool","tool_name":"abuse","arguments":{"mode":"panic"}}`, oeExecutionError, false, runtime.OutcomeTrap, "boom"},
	{"out of memory", `{"type":"call_tool","tool_name":"abuse","arguments":{"mode":"memory"}}`, oeExecutionError, false, runtime.OutcomeOutOfMemory, ""},
}

// checkCallObservation checks a StepResponse for a call_tool action.
func checkCallObservation(t *testing.T, obsSchema *jsonschema.Schema, c oeCase, step map[string]any) {
	t.Helper()
	obs, _ := step["observation"].(map[string]any)
	meta, _ := step["metadata"].(map[string]any)
	if obs == nil || meta == nil {
		t.Fatalf("%s: %v", c.name, step)
	}
	conforms(t, obsSchema, c.name+" observation", obs)
	if meta["outcome"] != string(c.outcome) {
		t.Errorf("%s: metadata.outcome = %v, want %s", c.name, meta["outcome"], c.outcome)
	}
	if c.errorType != "" {
		e, _ := obs["error"].(map[string]any)
		if e == nil || e["error_type"] != c.errorType || obs["result"] != nil || meta["error_type"] != c.errorType ||
			!strings.Contains(e["message"].(string), c.text) || strings.HasPrefix(e["message"].(string), "Error: ") {
			t.Errorf("%s: want error %s containing %q and no result: %v, metadata %v", c.name, c.errorType, c.text, obs, meta)
		}
		return
	}
	res, _ := obs["result"].(map[string]any)
	if obs["error"] != nil || res == nil || res["is_error"] != c.isError || meta["is_error"] != c.isError || meta["error_type"] != nil {
		t.Fatalf("%s: want a result with is_error %v and no error: %v, metadata %v", c.name, c.isError, obs, meta)
	}
	content := res["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["type"] != "text" || content[0].(map[string]any)["text"] != c.text {
		t.Errorf("%s: content %v, want one text %q", c.name, content, c.text)
	}
}

func TestOpenEnvTypedErrorsHTTP(t *testing.T) {
	ts := newTestServer(t, Options{})
	obsSchema := oeSchema(t, ts, "observation")
	_, m := ts.do("POST", "/reset", `{"seed":1}`)
	id := m["observation"].(map[string]any)["episode_id"].(string)
	for _, c := range oeCases {
		code, step := ts.do("POST", "/step", `{"episode_id":"`+id+`","action":`+c.action+`}`)
		if code != 200 {
			t.Fatalf("%s: HTTP %d %v", c.name, code, step)
		}
		checkCallObservation(t, obsSchema, c, step)
	}
	// The episode API reports the same outcome.
	ids := ts.create(`{}`)
	_, m = ts.do("POST", "/v1/episodes/"+ids[0]+"/step", `{"action":{"name":"get_membr"}}`)
	if m["info"].(map[string]any)["outcome"] != "unknown_tool" {
		t.Errorf("episode API step: %v", m)
	}
	_, m = ts.do("POST", "/v1/episodes/"+ids[0]+"/call", `{"name":"get","arguments":{"key":7}}`)
	if m["outcome"] != "invalid_args" {
		t.Errorf("episode API call: %v", m)
	}
}

func TestOpenEnvTypedErrorsWebSocket(t *testing.T) {
	ts := newTestServer(t, Options{})
	obsSchema := oeSchema(t, ts, "observation")
	rt := dialWS(t, ts, "/ws?seed=1")
	rt(`{"type":"reset","data":{}}`)
	for _, c := range oeCases {
		m := rt(`{"type":"step","data":` + c.action + `}`)
		if m["type"] != "observation" {
			t.Fatalf("%s: %v", c.name, m)
		}
		checkCallObservation(t, obsSchema, c, m["data"].(map[string]any))
	}
}

// A call that finds no free call slot in time never reached the tool:
// OpenEnv's transport_error, and the step does not count.
func TestOpenEnvTransportError(t *testing.T) {
	ts := newTestServer(t, Options{CallTimeout: 200 * time.Millisecond})
	obsSchema := oeSchema(t, ts, "observation")
	_, m := ts.do("POST", "/reset", `{}`)
	id := m["observation"].(map[string]any)["episode_id"].(string)
	for i := 0; i < cap(ts.srv.slots); i++ {
		ts.srv.slots <- struct{}{}
	}
	code, step := ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"tool_name":"list"}}`)
	for i := 0; i < cap(ts.srv.slots); i++ {
		<-ts.srv.slots
	}
	obs := step["observation"].(map[string]any)
	if code != 200 || obs["error"].(map[string]any)["error_type"] != oeTransportError || obs["result"] != nil {
		t.Fatalf("step with no slot: %d %v", code, step)
	}
	conforms(t, obsSchema, "transport error", obs)
	if _, st := ts.do("GET", "/state?episode_id="+id, ""); st["step_count"] != 0.0 {
		t.Errorf("the step counted: %v", st)
	}
}

func TestOpenEnvResultShape(t *testing.T) {
	ts := newTestServer(t, Options{})
	obsSchema := oeSchema(t, ts, "observation")
	stateSchema := oeSchema(t, ts, "state")
	_, m := ts.do("POST", "/reset", `{"seed":1}`)
	conforms(t, obsSchema, "reset observation", m["observation"])
	id := m["observation"].(map[string]any)["episode_id"].(string)

	// Default: the MCP call result object; a JSON object result is also
	// structured_content, and data keeps big numbers exact.
	_, step := ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"tool_name":"get","arguments":{"key":"a"}}}`)
	res := step["observation"].(map[string]any)["result"].(map[string]any)
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	sc, _ := res["structured_content"].(map[string]any)
	if sc == nil || sc["v"] != "apple" || res["data"].(map[string]any)["v"] != "apple" || res["is_error"] != false || !strings.Contains(text, `"apple"`) {
		t.Errorf("object result: %v", res)
	}
	// A result that is not a JSON object: no structured_content, data is the text.
	_, step = ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"tool_name":"put","arguments":{"key":"q","value":"x"}}}`)
	res = step["observation"].(map[string]any)["result"].(map[string]any)
	if res["structured_content"] != nil || res["data"] != "ok" {
		t.Errorf("text result: %v", res)
	}
	// The bare string, per step or for the whole episode.
	_, step = ts.do("POST", "/step", `{"episode_id":"`+id+`","result_format":"text","action":{"tool_name":"put","arguments":{"key":"q","value":"y"}}}`)
	if step["observation"].(map[string]any)["result"] != "ok" {
		t.Errorf("result_format text on step: %v", step)
	}
	conforms(t, obsSchema, "text result", step["observation"])
	ts.do("POST", "/reset", `{"episode_id":"`+id+`","result_format":"text"}`)
	_, step = ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"tool_name":"put","arguments":{"key":"q","value":"y"}}}`)
	if step["observation"].(map[string]any)["result"] != "ok" {
		t.Errorf("result_format text on reset: %v", step)
	}
	if code, m := ts.do("POST", "/reset", `{"result_format":"xml"}`); code != http.StatusUnprocessableEntity || !strings.Contains(toJSON(m), "result_format") {
		t.Errorf("bad result_format: %d %v", code, m)
	}
	// list_tools, final and state match the schema too.
	_, step = ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"type":"list_tools"}}`)
	conforms(t, obsSchema, "list_tools observation", step["observation"])
	_, st := ts.do("GET", "/state?episode_id="+id, "")
	conforms(t, stateSchema, "state", st)
	_, step = ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"type":"final","answer":"done"}}`)
	conforms(t, obsSchema, "final observation", step["observation"])

	// Over /ws, the query picks the format for the session.
	rt := dialWS(t, ts, "/ws?result_format=text")
	rt(`{"type":"reset","data":{}}`)
	m = rt(`{"type":"step","data":{"tool_name":"put","arguments":{"key":"w","value":"s"}}}`)
	if m["data"].(map[string]any)["observation"].(map[string]any)["result"] != "ok" {
		t.Errorf("ws text: %v", m)
	}
}

// dialWS opens a WebSocket on path and returns a round-trip function.
func dialWS(t *testing.T, ts *testServer, path string) func(string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return func(msg string) map[string]any {
		t.Helper()
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
}

func TestOpenEnvMCPAtRoot(t *testing.T) {
	ts := newTestServer(t, Options{})
	rpc := func(body string) map[string]any {
		t.Helper()
		code, m := ts.do("POST", "/mcp", body)
		if code != 200 {
			t.Fatalf("POST /mcp %s: %d %v", body, code, m)
		}
		return m
	}
	m := rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if m["id"] != 1.0 || len(m["result"].(map[string]any)["tools"].([]any)) != 6 {
		t.Fatalf("tools/list: %v", m)
	}
	before := ts.srv.Episodes()
	m = rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get","arguments":{"key":"a"}}}`)
	if r := m["result"].(map[string]any); r["isError"] != false || !strings.Contains(toJSON(r["content"]), "apple") || ts.srv.Episodes() != before {
		t.Fatalf("stateless tools/call: %v", m)
	}
	// Unknown tool: a JSON-RPC error, as the MCP specification has it;
	// bad arguments: a result with isError, which the model can act on.
	m = rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_membr","arguments":{}}}`)
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(rpcInvalidParams) || m["result"] != nil {
		t.Errorf("unknown tool: %v", m)
	}
	m = rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get","arguments":{"key":7}}}`)
	if r, _ := m["result"].(map[string]any); r == nil || r["isError"] != true || r["_meta"].(map[string]any)["outcome"] != "invalid_args" {
		t.Errorf("bad arguments: %v", m)
	}
	for body, code := range map[string]int{`{"jsonrpc":`: rpcParseError, `{"jsonrpc":"2.0","id":5,"method":"resources/list"}`: rpcMethodNotFound,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"session_id":"ep_nope","name":"list"}}`: rpcInvalidParams} {
		if e, _ := rpc(body)["error"].(map[string]any); e == nil || e["code"] != float64(code) {
			t.Errorf("%s: want error %d", body, code)
		}
	}
	// A session keeps state between requests until it is closed.
	sid := rpc(`{"jsonrpc":"2.0","id":7,"method":"openenv/session/create","params":{"task":"put-d"}}`)["result"].(map[string]any)["session_id"].(string)
	rpc(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"session_id":"` + sid + `","name":"put","arguments":{"key":"s","value":"kept"}}}`)
	m = rpc(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"session_id":"` + sid + `","name":"get","arguments":{"key":"s"}}}`)
	if !strings.Contains(toJSON(m["result"]), "kept") {
		t.Errorf("session lost its state: %v", m)
	}
	m = rpc(`{"jsonrpc":"2.0","id":10,"method":"openenv/session/close","params":{"session_id":"` + sid + `"}}`)
	if m["result"].(map[string]any)["closed"] != true || ts.srv.Episodes() != before {
		t.Errorf("close: %v, %d episodes", m, ts.srv.Episodes())
	}

	// GET /mcp: the same over a WebSocket, one episode per connection.
	rt := dialWS(t, ts, "/mcp?task=put-d")
	rt(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"put","arguments":{"key":"w","value":"ws"}}}`)
	m = rt(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get","arguments":{"key":"w"}}}`)
	if m["id"] != 2.0 || !strings.Contains(toJSON(m["result"]), `\"ws\"`) {
		t.Errorf("ws /mcp: %v", m)
	}
	if e, _ := rt(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}`)["error"].(map[string]any); e == nil || e["code"] != float64(rpcInvalidParams) {
		t.Errorf("ws /mcp unknown tool: want a JSON-RPC error")
	}
}

// The reported gaps of issue 14, point 10.
func TestOpenEnvStepDetails(t *testing.T) {
	// Two bundles: a stateless step names its env, and that env runs it.
	other := *miniBundleCopy(t)
	other.Manifest.Name = "mini-two"
	env2, err := runtime.LoadBundle(context.Background(), &other, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env2.Close() })
	srv, err := New([]*runtime.Env{miniEnv(t), env2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	ts := &testServer{t: t, srv: srv, url: hs.URL}
	if code, m := ts.do("POST", "/step", `{"action":{"tool_name":"list"}}`); code != http.StatusBadRequest || !strings.Contains(toJSON(m), "env") {
		t.Errorf("stateless step naming no env of two: %d %v", code, m)
	}
	code, m := ts.do("POST", "/step", `{"env":"mini-two","action":{"tool_name":"list"}}`)
	if code != 200 || m["observation"].(map[string]any)["error"] != nil {
		t.Fatalf("stateless step with env: %d %v", code, m)
	}
	if id := m["metadata"].(map[string]any)["episode_id"].(string); id == "" {
		t.Errorf("no episode id: %v", m)
	}

	ts = newTestServer(t, Options{})
	_, m = ts.do("POST", "/reset", `{"task":"put-d"}`)
	id := m["observation"].(map[string]any)["episode_id"].(string)
	// An unknown action type names every type there is.
	code, m = ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"type":"dance"}}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(toJSON(m), `list_tools`) {
		t.Errorf("unknown action type: %d %v", code, m)
	}
	// After the episode ended, list_tools is refused like every action.
	ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"type":"final"}}`)
	if code, m := ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"type":"list_tools"}}`); code != http.StatusConflict {
		t.Errorf("list_tools after the end: %d %v", code, m)
	}
}

// miniBundleCopy is a shallow copy of the mini bundle, to rename.
func miniBundleCopy(t *testing.T) *envpkg.Bundle {
	miniEnv(t) // builds it
	b := *miniBundle
	return &b
}

// MCP (specification 2025-06-18 and 2025-11-25, "Error Handling"): an
// unknown tool is a protocol error; arguments that fail the schema are a
// tool execution error (isError), which the model can correct.
func TestMCPUnknownToolIsProtocolError(t *testing.T) {
	ts := newTestServer(t, Options{})
	ids := ts.create(`{}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmenv-test", Version: "0"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.url + "/v1/episodes/" + ids[0] + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "get_membr"}); err == nil {
		t.Errorf("unknown tool: want a JSON-RPC error, got result %+v", res)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "get", Arguments: map[string]any{"key": 7}})
	if err != nil || !res.IsError {
		t.Errorf("bad arguments: want an isError result: %v %+v", err, res)
	}
}
