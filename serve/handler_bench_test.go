package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/wasmenv/wasmenv/runtime"
)

// BenchmarkCallHandler is the server's own work for one tool call of
// serve-bench (`get {"key":"a"}` on mini) without the HTTP transport: the
// handler from routing to the encoded response, on a request already
// parsed. Against serve-bench's server CPU per call (--server-process) it
// splits the handler's share from net/http's reading, writing and
// connection bookkeeping (issue 35, docs/BENCHMARKS.md). cpu-ns/op is the
// process's CPU time per call (GC included), steadier than ns/op on a
// loaded machine.
func BenchmarkCallHandler(b *testing.B) {
	srv, err := New([]*runtime.Env{miniEnv(b)}, Options{IdleTimeout: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/episodes", strings.NewReader(`{}`)))
	var cr struct {
		Episodes []string `json:"episodes"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &cr); err != nil || len(cr.Episodes) != 1 {
		b.Fatalf("create: HTTP %d %s", rec.Code, rec.Body)
	}
	path := "/v1/episodes/" + cr.Episodes[0] + "/call"
	body := []byte(`{"name":"get","arguments":{"key":"a"}}`)
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		req := httptest.NewRequest("POST", path, bytes.NewReader(body))
		clear(w.h)
		w.code, w.n = 0, 0
		srv.ServeHTTP(w, req)
		if w.code != http.StatusOK || w.n == 0 {
			b.Fatalf("HTTP %d, %d bytes", w.code, w.n)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the process's user and system CPU time in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// discardWriter is a ResponseWriter that keeps the status and the size.
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *discardWriter) Header() http.Header  { return w.h }
func (w *discardWriter) WriteHeader(code int) { w.code = code }
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}

// BenchmarkSocketHandler is BenchmarkCallHandler's call as a /v1/ws frame:
// the socket's own work for one call (reading the frame, the call, the
// answer frame) without the WebSocket transport. /batch=16 is one batch
// frame of 16 calls on 16 episodes, reported per call.
func BenchmarkSocketHandler(b *testing.B) {
	srv, err := New([]*runtime.Env{miniEnv(b)}, Options{IdleTimeout: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/episodes", strings.NewReader(`{"n":16}`)))
	var cr struct {
		Episodes []string `json:"episodes"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &cr); err != nil || len(cr.Episodes) != 16 {
		b.Fatalf("create: HTTP %d %s", rec.Code, rec.Body)
	}
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			var frame []byte
			if n > 1 {
				frame = append(frame, '[')
			}
			for i, id := range cr.Episodes[:n] {
				if i > 0 {
					frame = append(frame, ',')
				}
				frame = fmt.Appendf(frame, `{"id":%d,"op":"call","episode":%q,"body":{"name":"get","arguments":{"key":"a"}}}`, i, id)
			}
			if n > 1 {
				frame = append(frame, ']')
			}
			sc := &socketConn{s: srv, ctx: srv.ctx, owned: map[string]struct{}{}}
			sc.calls = newCallContext(sc.ctx)
			defer sc.calls.close()
			out := encPool.Get().(*jsonEncoder)
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				sc.handleFrame(frame, out)
				if bytes.Count(out.buf.Bytes(), []byte(`"status":200`)) != n {
					b.Fatalf("answer %s", out.buf.Bytes())
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N*n), "cpu-ns/call")
		})
	}
}
