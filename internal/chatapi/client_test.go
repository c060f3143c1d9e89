package chatapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/internal/llmreplay"
)

func hello() *Request {
	return &Request{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}}
}

func TestClientRetriesTransientErrors(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		case 2:
			http.Error(w, "slow down", http.StatusTooManyRequests)
		default:
			w.Write([]byte(llmreplay.Completion(`{"ok": true}`)))
		}
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Backoff: time.Millisecond}
	resp, err := c.Chat(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 || resp.Choices[0].Message.Content != `{"ok": true}` || resp.Usage == nil || resp.Usage.TotalTokens != 15 {
		t.Errorf("after %d requests: %+v", n.Load(), resp)
	}
}

func TestClientDoesNotRetryClientErrors(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, `{"error":{"message":"invalid api key"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Backoff: time.Millisecond}
	_, err := c.Chat(context.Background(), hello())
	var se *StatusError
	if !errors.Is(err, ErrStatus) || !errors.As(err, &se) || se.Code != 401 || n.Load() != 1 {
		t.Errorf("err %v after %d requests; want one 401", err, n.Load())
	}
}

// A connection dropped before the answer and a 408 are retried; a 200 that
// is not a completion is the server's answer and is not.
func TestClientRetriesDroppedConnections(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
		case 2:
			http.Error(w, "request timeout", http.StatusRequestTimeout)
		case 3:
			w.Write([]byte(llmreplay.Completion("done")))
		default:
			w.Write([]byte(`{"id":"x","choices":[]}`))
		}
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Backoff: time.Millisecond}
	resp, err := c.Chat(context.Background(), hello())
	if err != nil || n.Load() != 3 || resp.Choices[0].Message.Content != "done" {
		t.Fatalf("err %v after %d requests", err, n.Load())
	}
	if _, err := c.Chat(context.Background(), hello()); err == nil || n.Load() != 4 {
		t.Errorf("a completion without choices: err %v after %d requests", err, n.Load())
	}
}
