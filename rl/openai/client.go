package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Client talks to one OpenAI-compatible server. It is safe for concurrent
// use; at most Concurrency requests are in flight at once.
type Client struct {
	BaseURL string // e.g. http://127.0.0.1:8000/v1
	APIKey  string
	HTTP    *http.Client

	// Timeout bounds one request attempt (default 120 s); an attempt past
	// it is retried like a 5xx.
	Timeout time.Duration
	// Retries is how many times a transient failure is retried (default 5).
	Retries int
	// Backoff is the first retry's wait, doubled each time up to 30 s, with
	// jitter (default 500 ms). A Retry-After header wins when larger.
	Backoff time.Duration

	sem chan struct{}
}

// DefaultBaseURL is used when neither the flag nor OPENAI_BASE_URL is set.
const DefaultBaseURL = "https://api.openai.com/v1"

// NewClient returns a client for baseURL (else $OPENAI_BASE_URL, else
// OpenAI's) with apiKey (else $OPENAI_API_KEY) and a concurrency limit.
func NewClient(baseURL, apiKey string, concurrency int) *Client {
	if baseURL == "" {
		baseURL = os.Getenv("OPENAI_BASE_URL")
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	if apiKey == "" {
		apiKey = os.Getenv("OPENAI_API_KEY")
	}
	if concurrency < 1 {
		concurrency = 64
	}
	return &Client{
		BaseURL: strings.TrimRight(baseURL, "/"), APIKey: apiKey,
		HTTP: &http.Client{Transport: &http.Transport{
			MaxIdleConnsPerHost: concurrency, MaxConnsPerHost: concurrency,
			IdleConnTimeout: 90 * time.Second,
		}},
		sem: make(chan struct{}, concurrency),
	}
}

// ErrStatus is a response the client gave up on; errors.As gives the status.
type ErrStatus struct {
	Code    int
	Message string
}

func (e *ErrStatus) Error() string {
	return fmt.Sprintf("chat completions: HTTP %d: %s", e.Code, e.Message)
}

// Chat sends one request, retrying transient failures.
func (c *Client) Chat(ctx context.Context, req *ChatRequest) (*ChatResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	retries, backoff := c.Retries, c.Backoff
	if retries == 0 {
		retries = 5
	}
	if backoff == 0 {
		backoff = 500 * time.Millisecond
	}
	for attempt := 0; ; attempt++ {
		resp, wait, err := c.attempt(ctx, body)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if wait < 0 || attempt >= retries {
			if attempt > 0 {
				err = fmt.Errorf("after %d attempts: %w", attempt+1, err)
			}
			return nil, err
		}
		d := min(backoff<<attempt, 30*time.Second)
		d = d/2 + rand.N(d/2+1)
		d = max(d, wait)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// attempt makes one request. wait < 0 means do not retry; wait > 0 is the
// server's Retry-After.
func (c *Client) attempt(ctx context.Context, body []byte) (*ChatResponse, time.Duration, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, -1, ctx.Err()
	}
	defer func() { <-c.sem }()
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 120 * time.Second
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(actx, http.MethodPost, c.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, -1, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	res, err := c.HTTP.Do(hr)
	if err != nil {
		return nil, 0, fmt.Errorf("chat completions: %w", err) // network or timeout: retry
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return nil, 0, fmt.Errorf("chat completions: reading the response: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		e := &ErrStatus{Code: res.StatusCode, Message: errorMessage(data)}
		if res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 || res.StatusCode == http.StatusRequestTimeout {
			return nil, retryAfter(res.Header.Get("Retry-After")), e
		}
		return nil, -1, e
	}
	var out ChatResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, -1, fmt.Errorf("chat completions: the response is not JSON: %w", err)
	}
	if len(out.Choices) == 0 {
		return nil, -1, errors.New("chat completions: the response has no choices")
	}
	return &out, 0, nil
}

func errorMessage(data []byte) string {
	var e wireError
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func retryAfter(h string) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s > 0 {
		return min(time.Duration(s)*time.Second, time.Minute)
	}
	return 0
}
