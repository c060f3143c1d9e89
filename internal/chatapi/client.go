package chatapi

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

// DefaultBaseURL is used when neither the caller nor OPENAI_BASE_URL names
// a server.
const DefaultBaseURL = "https://api.openai.com/v1"

// The defaults of a Client's zero fields, for every caller (rollout
// policies, the simulated user, synthesis).
const (
	DefaultRetries = 5
	DefaultBackoff = 500 * time.Millisecond
	DefaultTimeout = 120 * time.Second
	// MaxBackoff caps one wait between retries (a longer Retry-After wins,
	// up to a minute).
	MaxBackoff = 30 * time.Second
	// DefaultMaxResponseBytes caps one response body (Client.MaxResponseBytes).
	DefaultMaxResponseBytes = 64 << 20
)

// BaseURL returns url, else $OPENAI_BASE_URL, else DefaultBaseURL, as the
// OpenAI SDKs choose; the one place wasmenv reads $OPENAI_BASE_URL.
func BaseURL(url string) string {
	if url == "" {
		url = os.Getenv("OPENAI_BASE_URL")
	}
	if url == "" {
		url = DefaultBaseURL
	}
	return strings.TrimRight(url, "/")
}

// Client talks to one OpenAI-compatible server. It is safe for concurrent
// use; set its fields before the first request.
type Client struct {
	// BaseURL is the API root, such as http://127.0.0.1:8000/v1;
	// /chat/completions is appended.
	BaseURL string
	// APIKey is sent as a bearer token when not empty.
	APIKey string
	// HTTP is the transport (nil: http.DefaultClient).
	HTTP *http.Client
	// Timeout bounds one request attempt (0: DefaultTimeout); an attempt
	// past it is retried like a 5xx.
	Timeout time.Duration
	// Retries is how many times a transient failure is retried (0:
	// DefaultRetries; negative: never, so a user's "--retries 0" is
	// NoRetries).
	Retries int
	// Backoff is the first retry's wait, doubled each time up to
	// MaxBackoff, with jitter (0: DefaultBackoff). A Retry-After header
	// wins when larger.
	Backoff time.Duration
	// OnRetry, when set, is called before each wait to retry, with the
	// attempt that failed (1 for the first), the wait and the failure: a
	// command shows it so a user is not left looking at a silent terminal.
	OnRetry func(attempt int, wait time.Duration, err error)
	// Limit caps the requests in flight (nil: no limit). A request waiting
	// to be retried does not hold a slot.
	Limit *Limit
	// MaxResponseBytes caps one response body (0: DefaultMaxResponseBytes,
	// 64 MiB); a longer one is an error, not retried, and not kept.
	MaxResponseBytes int64
}

// Limit is a concurrency limit that clients may share.
type Limit struct{ slots chan struct{} }

// NewLimit allows n requests in flight at once; n < 1 means no limit (nil).
func NewLimit(n int) *Limit {
	if n < 1 {
		return nil
	}
	return &Limit{slots: make(chan struct{}, n)}
}

func (l *Limit) acquire(ctx context.Context) error {
	if l == nil {
		return nil
	}
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *Limit) release() {
	if l != nil {
		<-l.slots
	}
}

// New returns a client for baseURL (else $OPENAI_BASE_URL, else OpenAI's)
// with apiKey (else $OPENAI_API_KEY), as the OpenAI SDKs read them, and a
// concurrency limit (< 1: 64) that its connection pool matches.
func New(baseURL, apiKey string, concurrency int) *Client {
	baseURL = BaseURL(baseURL)
	if apiKey == "" {
		apiKey = os.Getenv("OPENAI_API_KEY")
	}
	if concurrency < 1 {
		concurrency = 64
	}
	return &Client{
		BaseURL: baseURL, APIKey: apiKey,
		HTTP: &http.Client{Transport: &http.Transport{
			MaxIdleConnsPerHost: concurrency, MaxConnsPerHost: concurrency,
			IdleConnTimeout: 90 * time.Second,
		}},
		Limit: NewLimit(concurrency),
	}
}

// ErrStatus is what every StatusError unwraps to: the server answered with
// an error status and the client gave up.
var ErrStatus = errors.New("chat completions: the server refused the request")

// ErrTooLarge is a response body over Client.MaxResponseBytes.
var ErrTooLarge = errors.New("response too large")

// StatusError is a response the client gave up on: a status that is not
// retried, or the last of its retries.
type StatusError struct {
	Code int
	// Message is the error's message when the body has the OpenAI error
	// shape, else the body's start.
	Message string
	// Body is the whole response body.
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("chat completions: HTTP %d: %s", e.Code, e.Message)
}

func (e *StatusError) Unwrap() error { return ErrStatus }

// Chat sends one chat-completions request, retrying transient failures. A
// response that is not JSON or has no choices is an error.
func (c *Client) Chat(ctx context.Context, req *Request) (*Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	data, err := c.Post(ctx, "/chat/completions", body)
	if err != nil {
		return nil, err
	}
	var out wireResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("chat completions: the response is not JSON: %w", err)
	}
	if len(out.Choices) == 0 {
		return nil, errors.New("chat completions: the response has no choices")
	}
	return fromWire(&out), nil
}

// NoRetries as Client.Retries retries nothing.
const NoRetries = -1

// backoff is the wait before retry number attempt+1: base doubled attempt
// times, capped at MaxBackoff, the upper half of it jittered. Doubling
// stops at the cap, so no attempt number overflows it (base<<35 did).
func backoff(base time.Duration, attempt int) time.Duration {
	d := max(base, time.Nanosecond)
	for i := 0; i < attempt && d < MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

// Post sends a JSON body to path under BaseURL and returns the response
// body of a 200, retrying 429, 408, 5xx, timeouts and transport errors with
// exponential backoff.
func (c *Client) Post(ctx context.Context, path string, body []byte) ([]byte, error) {
	retries, base := c.Retries, c.Backoff
	if retries == 0 {
		retries = DefaultRetries
	}
	if base == 0 {
		base = DefaultBackoff
	}
	for attempt := 0; ; attempt++ {
		data, wait, err := c.attempt(ctx, path, body)
		if err == nil {
			return data, nil
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
		d := max(backoff(base, attempt), wait)
		if c.OnRetry != nil {
			c.OnRetry(attempt+1, d, err)
		}
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
func (c *Client) attempt(ctx context.Context, path string, body []byte) ([]byte, time.Duration, error) {
	if err := c.Limit.acquire(ctx); err != nil {
		return nil, -1, err
	}
	defer c.Limit.release()
	what := strings.TrimSpace(strings.ReplaceAll(path, "/", " ")) // "chat completions", "embeddings"
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(actx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return nil, -1, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	res, err := hc.Do(hr)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", what, err) // network or timeout: retry
	}
	defer res.Body.Close()
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: reading the response: %w", what, err)
	}
	if int64(len(data)) > limit {
		return nil, -1, fmt.Errorf("%s: %w: the response is over %d bytes", what, ErrTooLarge, limit)
	}
	if res.StatusCode != http.StatusOK {
		e := &StatusError{Code: res.StatusCode, Message: errorMessage(data), Body: string(data)}
		if res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 || res.StatusCode == http.StatusRequestTimeout {
			return nil, retryAfter(res.Header.Get("Retry-After")), e
		}
		return nil, -1, e
	}
	return data, 0, nil
}

func errorMessage(data []byte) string {
	var e errorBody
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
