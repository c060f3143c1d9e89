package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/runtime"
)

// callBodies are /call bodies of every shape the fast path must answer as
// encoding/json does: the usual ones, and the ones it must leave to it.
var callBodies = []string{
	`{"name":"get","arguments":{"key":"a"}}`,
	` { "arguments" : {"key":"a","n":[1,2,{"x":null}]} , "name" : "get" } `,
	"{\n\t\"name\": \"get\",\r\n\"arguments\": {}\n}",
	`{"name":"get","arguments":"{\"key\":\"a\"}"}`,
	`{"name":"get","arguments":null}`, `{"name":"get","arguments":[]}`, `{"name":"get","arguments":12.5e3}`,
	`{"name":"get","arguments":true}`, `{"name":"get"}`, `{"arguments":{}}`, `{}`, ``, `   `, `null`,
	`{"name":"get","arguments":{"key":"a"}}  `, `{"name":"get","arguments":{"key":"a"}}x`,
	`{"name":"get","arguments":{"key":"a"}}{}`, `{"name":"get","arguments":{"key":"a"},}`,
	`{"name":"get","arguments":{"key":"a"}`, `{"name":"get","arguments":{"key":"a"]}`,
	`{"name":"get","arguments":{"key":"a}}`, `{"name":"get","arguments":{key:"a"}}`,
	`{"name":"get","arguments":01}`, `{"name":"get","arguments":-}`, `{"name":"get","arguments":tru}`,
	`{"name":"get","arguments":}`, `{"name":"get" "arguments":{}}`, `{"name":"get",,"arguments":{}}`,
	`{"name":"get","name":"put","arguments":{}}`, `{"name":"get","arguments":{},"arguments":[]}`,
	`{"Name":"get","arguments":{}}`, `{"NAME":"get","ARGUMENTS":{"k":1}}`, `{"name":"get","extra":1}`,
	`{"name":"g\u00e9t","arguments":{}}`, `{"name":"g\"et","arguments":{}}`, "{\"name\":\"g\x01et\"}",
	"{\"name\":\"g\xffet\",\"arguments\":{}}", `{"name":"gét","arguments":{"k":"vé"}}`,
	`{"name":5,"arguments":{}}`, `{"name":null,"arguments":{}}`, `{"name":["get"],"arguments":{}}`,
	`{"name":"get","arguments":{"a":"}"}}`, `{"name":"get","arguments":{"a":"\\"}}`,
	`{"name":"get","arguments":"\\"}`, `{"name":"get","arguments":"x\"}"}`,
	`[{"name":"get"}]`, `"name"`, `{"name":"get","arguments":{"k":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}}`,
	"\u00a0{\"name\":\"get\",\"arguments\":{}}\u00a0", "{\"name\":\"get\",\"arguments\":{}}\u2028",
}

// decodeOutcome is what a body decodes to, or the client's error for it.
func decodeOutcome(req callReq, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return "name=" + req.Name + " args=" + string(req.Arguments)
}

// TestParseCallReqMatchesDecoder: the /call route's fast decoding gives
// what encoding/json gives (the decoded request or the error text) on the
// corpus above and on thousands of random edits of it.
func TestParseCallReqMatchesDecoder(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		var want, got callReq
		wantErr := decodeBytes(b, &want, 16, true)
		gotErr := decodeCallReq(bytes.Clone(b), &got, 16, false)
		if w, g := decodeOutcome(want, wantErr), decodeOutcome(got, gotErr); w != g {
			t.Fatalf("body %q:\n encoding/json: %s\n fast path:     %s", b, w, g)
		}
	}
	for _, s := range callBodies {
		check([]byte(s))
	}
	const alphabet = "{}[]\":,\\ \t\nabnmeg0-.e+tufl\x00\xc3\xa9\xff"
	r := rand.New(rand.NewPCG(35, 1))
	for range 20000 {
		b := []byte(callBodies[r.IntN(len(callBodies))])
		for range 1 + r.IntN(3) {
			switch i := r.IntN(len(b) + 1); r.IntN(3) {
			case 0: // insert
				b = append(b[:i], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[i:]...)...)
			case 1: // delete
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			default: // replace
				if i < len(b) {
					b[i] = alphabet[r.IntN(len(alphabet))]
				}
			}
		}
		check(b)
	}
}

// TestParseCallReqTakesTheUsualShape: the usual bodies do take the fast
// path (else the test above would compare the decoder with itself).
func TestParseCallReqTakesTheUsualShape(t *testing.T) {
	for _, s := range callBodies[:9] {
		var req callReq
		if !parseCallReq(bytes.TrimSpace([]byte(s)), &req, false) {
			t.Errorf("%q went to encoding/json", s)
		}
	}
}

// reusableBody is a request body that can be read again: a request that
// allocates nothing of its own per call.
type reusableBody struct{ bytes.Reader }

func (*reusableBody) Close() error { return nil }

// TestCallRouteAllocations: the /call route's own work (the handler, on a
// request already parsed) allocates at most 20 objects per call; it took
// 29 with encoding/json's Decoder, io.ReadAll and an encoder per response
// (issue 35: allocations are server CPU per call, in GC).
func TestCallRouteAllocations(t *testing.T) {
	srv, err := New([]*runtime.Env{miniEnv(t)}, Options{IdleTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/episodes", strings.NewReader(`{}`)))
	var cr struct {
		Episodes []string `json:"episodes"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &cr); err != nil || len(cr.Episodes) != 1 {
		t.Fatalf("create: HTTP %d %s", rec.Code, rec.Body)
	}
	payload := []byte(`{"name":"get","arguments":{"key":"a"}}`)
	body := &reusableBody{}
	req := httptest.NewRequest("POST", "/v1/episodes/"+cr.Episodes[0]+"/call", nil)
	req.Body = body
	req.ContentLength = int64(len(payload))
	w := &discardWriter{h: http.Header{}}
	var out bytes.Buffer
	call := func() {
		body.Reset(payload)
		clear(w.h)
		w.code, w.n = 0, 0
		srv.ServeHTTP(w, req)
		if w.code != http.StatusOK || w.n == 0 {
			t.Fatalf("HTTP %d, %d bytes", w.code, w.n)
		}
	}
	call()
	allocs := testing.AllocsPerRun(200, call)
	// The same route answers as before: the tool's result, in full.
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("POST", req.URL.Path, bytes.NewReader(payload)))
	io.Copy(&out, rec.Body)
	if rec.Code != http.StatusOK || !strings.Contains(out.String(), `"is_error":false`) {
		t.Fatalf("HTTP %d %s", rec.Code, out.String())
	}
	if raceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	if allocs > 20 {
		t.Errorf("the /call route allocates %.0f objects per call, want at most 20", allocs)
	}
	t.Logf("%.0f allocations per call", allocs)
}
