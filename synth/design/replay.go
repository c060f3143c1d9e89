package design

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/wasmenv/wasmenv/internal/llmreplay"
)

// Replay is an http.RoundTripper that answers chat-completions requests
// from a recording (internal/relay writes one: index.json of entries
// keyed by llmreplay.RequestKey, one response body per file) instead of
// an endpoint: a run recorded once through a model is reproduced, byte
// for byte, with no model. A request the recording does not hold fails
// with an error that says so; nothing is made up.
type Replay struct {
	dir   string
	index []llmreplay.Entry
	mu    sync.Mutex
	used  map[string]int
}

// NewReplay reads the recording in dir.
func NewReplay(dir string) (*Replay, error) {
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		return nil, fmt.Errorf("design: the recording: %w", err)
	}
	r := &Replay{dir: dir, used: map[string]int{}}
	if err := json.Unmarshal(b, &r.index); err != nil {
		return nil, fmt.Errorf("design: the recording's index.json: %w", err)
	}
	return r, nil
}

// ErrNotRecorded is a request the recording holds no answer to.
var ErrNotRecorded = errors.New("design: the recording holds no answer to this request (it was recorded from other inputs or another version)")

// RoundTrip answers req from the recording; entries with the same key are
// served in turn, the least used first, as llmreplay does.
func (r *Replay) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	key := llmreplay.RequestKey(body)
	r.mu.Lock()
	best := llmreplay.Keyed(r.index, key, r.used)
	if best < 0 {
		r.mu.Unlock()
		// A client error, which the client does not retry.
		msg, _ := json.Marshal(map[string]any{"error": map[string]string{"message": ErrNotRecorded.Error() + ": " + r.dir}})
		return &http.Response{StatusCode: http.StatusBadRequest, Status: "400 Bad Request", Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(bytes.NewReader(msg)), ContentLength: int64(len(msg)), Request: req}, nil
	}
	file := r.index[best].File
	r.used[file]++
	r.mu.Unlock()
	resp, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(filepath.Clean("/"+file))))
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(resp)), ContentLength: int64(len(resp)), Request: req}, nil
}
