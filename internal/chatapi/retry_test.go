package chatapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/internal/llmreplay"
)

// base<<attempt overflowed at attempt 35 (500 ms) and rand.N panicked on
// the negative wait: a --retries 40 run crashed on its 36th failure.
func TestBackoffNeverOverflows(t *testing.T) {
	for _, base := range []time.Duration{time.Nanosecond, DefaultBackoff, time.Second, time.Hour, -time.Second} {
		for attempt := 0; attempt < 200; attempt++ {
			d := backoff(base, attempt)
			if d < 0 || d > MaxBackoff {
				t.Fatalf("backoff(%v, %d) = %v, want in [0, %v]", base, attempt, d, MaxBackoff)
			}
		}
	}
	if d := backoff(time.Second, 100); d < MaxBackoff/2 {
		t.Errorf("late retries wait %v, want at least %v", d, MaxBackoff/2)
	}
}

// NoRetries sends one request; OnRetry sees each retry, with its attempt
// number and the failure.
func TestRetriesZeroAndOnRetry(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer srv.Close()

	c := &Client{BaseURL: srv.URL, Backoff: time.Millisecond, Retries: NoRetries}
	_, err := c.Chat(context.Background(), hello())
	if !errors.Is(err, ErrStatus) || n.Load() != 1 {
		t.Fatalf("NoRetries: %v after %d requests, want one 503", err, n.Load())
	}

	n.Store(0)
	var seen []int
	c = &Client{BaseURL: srv.URL, Backoff: time.Millisecond, Retries: 2,
		OnRetry: func(attempt int, wait time.Duration, err error) {
			if wait <= 0 || !errors.Is(err, ErrStatus) {
				t.Errorf("OnRetry(%d, %v, %v)", attempt, wait, err)
			}
			seen = append(seen, attempt)
		}}
	if _, err := c.Chat(context.Background(), hello()); err == nil || n.Load() != 3 {
		t.Fatalf("Retries 2: %v after %d requests", err, n.Load())
	}
	if len(seen) != 2 || seen[0] != 1 || seen[1] != 2 {
		t.Errorf("OnRetry saw attempts %v, want [1 2]", seen)
	}
}

func TestBaseURL(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://env.example/v1/")
	if got := BaseURL(""); got != "http://env.example/v1" {
		t.Errorf("from the environment: %q", got)
	}
	if got := BaseURL("http://flag.example/v1"); got != "http://flag.example/v1" {
		t.Errorf("given: %q", got)
	}
	t.Setenv("OPENAI_BASE_URL", "")
	if got := BaseURL(""); got != DefaultBaseURL {
		t.Errorf("default: %q", got)
	}
}

// A response over MaxResponseBytes is an error, not retried, and not
// decoded (a truncated body used to come back as "not JSON").
func TestResponseSizeCap(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Write([]byte(llmreplay.Completion(strings.Repeat("x", 5000))))
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Backoff: time.Millisecond, MaxResponseBytes: 4096}
	if _, err := c.Chat(context.Background(), hello()); !errors.Is(err, ErrTooLarge) || n.Load() != 1 {
		t.Fatalf("%v after %d requests", err, n.Load())
	}
	c.MaxResponseBytes = 1 << 20
	if resp, err := c.Chat(context.Background(), hello()); err != nil || len(resp.Choices[0].Message.Content) != 5000 {
		t.Fatalf("under the cap: %v", err)
	}
}
