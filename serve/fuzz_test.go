package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/runtime"
)

// FuzzDecode checks that request decoding never panics and that whatever
// rawArgs passes on is what the runtime would be given.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `{"name":"get","arguments":{"key":"a"}}`, `{"name":"get","arguments":"{\"key\":\"a\"}"}`,
		`{"name":5}`, `[[[[[[[[[[]]]]]]]]]]`, `{"a":"\"[[[["}`, `{"seed":1e99}`, `"\u0000"`, `{"action":{"type":"final","answer":null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c callReq
		if decodeBytes(b, &c, 16, true) == nil {
			a := rawArgs(c.Arguments)
			if len(a) == 0 {
				t.Fatalf("empty arguments from %q", b)
			}
		}
		var s stepReq
		decodeBytes(b, &s, 16, true)
		var o oeResetReq
		decodeBytes(b, &o, 16, false)
		if err := checkDepth(b, 16); err == nil && json.Valid(b) {
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("valid JSON did not decode: %v", err)
			}
		}
	})
}

// FuzzHandlers sends arbitrary bodies to every route: a client's input must
// never cause a 5xx or a panic.
func FuzzHandlers(f *testing.F) {
	routes := []string{"POST /v1/episodes", "POST /v1/episodes/ID/call", "POST /v1/episodes/ID/step",
		"POST /v1/episodes/ID/score", "POST /v1/episodes/ID/reset", "GET /v1/episodes/ID/diff",
		"POST /reset", "POST /step", "GET /state?episode_id=ID", "POST /v1/episodes/ID/mcp"}
	for i := range routes {
		for _, s := range []string{``, `{}`, `{"name":"put","arguments":{"key":"x","value":"y"}}`,
			`{"action":{"name":"get","arguments":{"key":"a"}}}`, `{"action":{"type":"final","answer":"x"}}`,
			`{"seed":-1,"n":2}`, `{"answer":"avocado"}`, `{"action":{"type":"list_tools"},"episode_id":"ID"}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{"key":"a"}}}`,
			`{"name":"abuse","arguments":{"mode":"nilmap"}}`, `{"task":"state-b"}`} {
			f.Add(uint8(i), s)
		}
	}
	srv, err := New(nil, Options{})
	if err == nil {
		f.Fatal("New without environments succeeded")
	}
	env := miniEnv(f)
	srv, err = New([]*runtime.Env{env}, Options{MaxEpisodes: 64, MaxGroup: 4, MaxBodyBytes: 1 << 16})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		eps, err := srv.newGroup(context.Background(), "", "delete-a", 0, 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		id := eps[0].id
		defer func() {
			if srv.table.remove(id) {
				eps[0].close(t.Context())
			}
		}()
		r := routes[int(route)%len(routes)]
		method, path, _ := strings.Cut(r, " ")
		path = strings.ReplaceAll(path, "ID", id)
		body = strings.ReplaceAll(body, "ID", id)
		req := httptest.NewRequest(method, path, bytes.NewReader([]byte(body)))
		if strings.HasSuffix(path, "/mcp") {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %q: HTTP %d %s", r, body, w.Code, w.Body.Bytes())
		}
		if w.Code >= 400 && !strings.HasSuffix(path, "/mcp") && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s %q: HTTP %d, body not JSON: %q", r, body, w.Code, w.Body.Bytes())
		}
		for _, e := range srv.table.drain() { // episodes the body created
			if e.id != id {
				e.close(t.Context())
			} else {
				srv.table.add([]*episode{e}, 0)
			}
		}
		if srv.Stats().Panics != 0 {
			t.Fatal("a handler panicked")
		}
	})
}
