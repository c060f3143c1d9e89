package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMCP(t *testing.T) {
	ts := newTestServer(t, Options{})
	ids := ts.create(`{"n":2}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmenv-test", Version: "0"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.url + "/v1/episodes/" + ids[0] + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tools, err := sess.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 6 {
		t.Fatalf("%d tools", len(tools.Tools))
	}
	for _, tool := range tools.Tools {
		if tool.Name == "put" && !strings.Contains(toJSON(tool.InputSchema), `"value"`) {
			t.Fatalf("put's input schema: %s", toJSON(tool.InputSchema))
		}
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "put", Arguments: map[string]any{"key": "m", "value": "mcp"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "ok" {
		t.Fatalf("put: %v %+v", err, res)
	}
	res, err = sess.CallTool(ctx, &mcp.CallToolParams{Name: "get", Arguments: map[string]any{"key": 7}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "invalid arguments") {
		t.Fatalf("bad arguments: %v %+v", err, res)
	}
	// The MCP call changed this episode, and only this one.
	_, m := ts.do("GET", "/v1/episodes/"+ids[0]+"/diff", "")
	if !strings.Contains(toJSON(m), `"mcp"`) {
		t.Fatalf("diff of episode 0: %v", m)
	}
	_, m = ts.do("GET", "/v1/episodes/"+ids[1]+"/diff", "")
	if strings.Contains(toJSON(m), `"mcp"`) {
		t.Fatalf("episode 1 changed: %v", m)
	}
	// After deletion the endpoint is gone.
	ts.do("DELETE", "/v1/episodes/"+ids[0], "")
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "list"}); err == nil {
		t.Fatal("call on a deleted episode succeeded")
	}
}

func TestOpenEnvHTTP(t *testing.T) {
	ts := newTestServer(t, Options{})
	code, m := ts.do("POST", "/reset", `{"task":"delete-a","seed":5}`)
	if code != 200 || m["done"] != false || m["reward"] != nil {
		t.Fatalf("reset: %d %v", code, m)
	}
	obs := m["observation"].(map[string]any)
	id := obs["episode_id"].(string)
	if obs["instruction"] != "Delete key a." {
		t.Fatalf("observation: %v", obs)
	}
	code, m = ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"type":"call_tool","tool_name":"delete","arguments":{"keys":["a"]}}}`)
	if code != 200 || m["done"] != false || m["observation"].(map[string]any)["tool_name"] != "delete" {
		t.Fatalf("step: %d %v", code, m)
	}
	code, m = ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"type":"list_tools"}}`)
	if code != 200 || len(m["observation"].(map[string]any)["tools"].([]any)) != 6 {
		t.Fatalf("list_tools: %d %v", code, m)
	}
	code, m = ts.do("GET", "/state?episode_id="+id, "")
	if code != 200 || m["step_count"] != 1.0 || m["episode_id"] != id {
		t.Fatalf("state: %d %v", code, m)
	}
	code, m = ts.do("POST", "/step", `{"episode_id":"`+id+`","action":{"type":"final","answer":"avocado"}}`)
	if code != 200 || m["done"] != true || m["reward"] != 1.0 {
		t.Fatalf("final: %d %v", code, m)
	}
	// Reset of the same episode by id.
	code, m = ts.do("POST", "/reset", `{"episode_id":"`+id+`"}`)
	if code != 200 || m["observation"].(map[string]any)["episode_id"] != id {
		t.Fatalf("reset by id: %d %v", code, m)
	}
	// Stateless step, as OpenEnv does it: a throwaway episode.
	before := ts.srv.Episodes()
	code, m = ts.do("POST", "/step", `{"action":{"tool_name":"get","arguments":{"key":"a"}}}`)
	if code != 200 || !strings.Contains(toJSON(m["observation"].(map[string]any)["result"]), "apple") || ts.srv.Episodes() != before {
		t.Fatalf("stateless step: %d %v", code, m)
	}
	for _, p := range []string{"/schema", "/metadata", "/health", "/state"} {
		if code, m := ts.do("GET", p, ""); code != 200 {
			t.Fatalf("%s: %d %v", p, code, m)
		}
	}
	_, m = ts.do("GET", "/schema", "")
	if m["action"] == nil || m["observation"] == nil || m["state"] == nil {
		t.Fatalf("schema: %v", m)
	}
}

func TestOpenEnvWebSocket(t *testing.T) {
	ts := newTestServer(t, Options{Token: "tok"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wsURL := "ws" + strings.TrimPrefix(ts.url, "http") + "/ws"
	if _, _, err := websocket.Dial(ctx, wsURL, nil); err == nil {
		t.Fatal("dial without the token succeeded")
	}
	c, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer tok"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	rt := func(msg string) map[string]any {
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
	m := rt(`{"type":"reset","data":{"task":"put-d","seed":1}}`)
	data := m["data"].(map[string]any)
	if m["type"] != "observation" || data["done"] != false {
		t.Fatalf("reset: %v", m)
	}
	id := data["observation"].(map[string]any)["episode_id"].(string)
	if ts.srv.Episodes() != 1 {
		t.Fatalf("%d episodes", ts.srv.Episodes())
	}
	m = rt(`{"type":"step","data":{"type":"call_tool","tool_name":"put","arguments":{"key":"d","value":"date","n":4}}}`)
	if m["type"] != "observation" || !strings.Contains(toJSON(m["data"].(map[string]any)["observation"].(map[string]any)["result"]), `"text":"ok"`) {
		t.Fatalf("step: %v", m)
	}
	m = rt(`{"type":"state"}`)
	if m["type"] != "state" || m["data"].(map[string]any)["step_count"] != 1.0 || m["data"].(map[string]any)["episode_id"] != id {
		t.Fatalf("state: %v", m)
	}
	m = rt(`{"type":"mcp","data":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}`)
	if m["type"] != "mcp" || len(m["data"].(map[string]any)["result"].(map[string]any)["tools"].([]any)) != 6 {
		t.Fatalf("mcp: %v", m)
	}
	m = rt(`{"type":"step","data":{"type":"final"}}`)
	if d := m["data"].(map[string]any); d["done"] != true || d["reward"] != 1.0 {
		t.Fatalf("final: %v", m)
	}
	for msg, code := range map[string]string{`{"type":`: wsInvalidJSON, `{"type":"dance"}`: wsUnknownType,
		`{"type":"step","data":{"type":"call_tool","tool_name":"get"}}`: wsExecutionError,
		`{"type":"step","data":[1]}`:                                    wsValidationError} {
		m = rt(msg)
		if m["type"] != "error" || m["data"].(map[string]any)["code"] != code {
			t.Errorf("%s: %v, want %s", msg, m, code)
		}
	}
	m = rt(`{"type":"reset","data":{}}`) // same episode, reset
	if m["data"].(map[string]any)["observation"].(map[string]any)["episode_id"] != id {
		t.Fatalf("reset changed the episode: %v", m)
	}
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"close"}`))
	c.Read(ctx)
	deadline := time.Now().Add(2 * time.Second)
	for ts.srv.Episodes() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := ts.srv.Episodes(); n != 0 {
		t.Fatalf("%d episodes after the socket closed", n)
	}
}
