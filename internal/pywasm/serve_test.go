package pywasm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/serve"
)

// The Python environment served over HTTP, its episode driven by the
// official MCP Go SDK client.
func TestPythonEnvironmentServedOverMCP(t *testing.T) {
	e := library(t)
	s, err := serve.New([]*runtime.Env{e}, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/v1/episodes", "application/json", strings.NewReader(`{"env":"pylibrary"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Episodes []string `json:"episodes"`
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || len(created.Episodes) != 1 {
		t.Fatalf("create: HTTP %d %+v", resp.StatusCode, created)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmenv-test", Version: "0"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/v1/episodes/" + created.Episodes[0] + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tools, err := sess.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "borrow_book", Arguments: map[string]any{"member_id": "m1", "book_id": "b4"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"due": "2024-06-17T09:00`) {
		t.Fatalf("borrow_book: %v %+v", err, res)
	}
	res, err = sess.CallTool(ctx, &mcp.CallToolParams{Name: "return_book", Arguments: map[string]any{"loan_id": 99}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "no loan 99") {
		t.Fatalf("return_book: %v %+v", err, res)
	}
}
