package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Client talks to an OpenAI-compatible chat-completions endpoint (OpenAI,
// vLLM, SGLang, llama.cpp server, most hosted gateways).
type Client struct {
	// BaseURL is the API root, such as https://api.openai.com/v1 or
	// http://127.0.0.1:8000/v1; /chat/completions is appended.
	BaseURL string
	// Model is sent with every request.
	Model string
	// APIKey is sent as a bearer token when not empty.
	APIKey string
	// EmbeddingModel enables /embeddings for deduplication when not empty.
	EmbeddingModel string
	// Temperature of every request (default 0: reproducible where the server allows).
	Temperature float64
	// MaxTokens bounds each completion (0: the server's default).
	MaxTokens int
	// Retries is how many times a request is retried after a 429, a 5xx, a
	// timeout or a dropped connection (default 4), with exponential backoff.
	Retries int
	// Backoff is the first retry's delay (default 1s), doubled each time,
	// with jitter; a Retry-After header wins when it is longer.
	Backoff time.Duration
	// Timeout bounds one request (default 5 minutes).
	Timeout time.Duration
	// HTTP is the transport (default http.DefaultClient).
	HTTP *http.Client
	// Prices turns tokens into cost; zero prices count tokens only.
	Prices Prices

	sem      chan struct{}
	jsonMode atomic.Int32 // 0: json_schema, 1: json_object, 2: none (what the server accepted)
}

// Prices are US dollars per million tokens.
type Prices struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// Cost of a usage at these prices.
func (p Prices) Cost(u Usage) float64 {
	return (float64(u.PromptTokens)*p.Input + float64(u.CompletionTokens)*p.Output) / 1e6
}

// SetConcurrency limits how many requests are in flight at once (≤ 0: no limit).
// Call it before the first request.
func (c *Client) SetConcurrency(n int) {
	if n > 0 {
		c.sem = make(chan struct{}, n)
	}
}

// Message is one chat message.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// ToolCall is a function call requested by the model.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Usage is token accounting as the server reports it.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Request is one chat completion.
type Request struct {
	Messages []Message
	// Schema asks for JSON output matching it (structured outputs); the
	// client falls back to JSON mode and then to plain text when the server
	// refuses response_format. Nil asks for plain text.
	Schema json.RawMessage
	// SchemaName names the schema for the server.
	SchemaName string
	// Tools are offered for function calling (OpenAI tool form).
	Tools []json.RawMessage
}

// Response is the first choice of a completion.
type Response struct {
	ID           string
	Message      Message
	FinishReason string
	Usage        Usage
}

// ErrStatus is a non-retryable HTTP error from the endpoint.
var ErrStatus = errors.New("llm: endpoint refused the request")

// StatusError carries the endpoint's status and message.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("llm: endpoint answered %d: %s", e.Code, truncate(e.Body, 500))
}

func (e *StatusError) Unwrap() error { return ErrStatus }

// Chat sends a request, retrying transient failures.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	if c.sem != nil {
		select {
		case c.sem <- struct{}{}:
			defer func() { <-c.sem }()
		case <-ctx.Done():
			return Response{}, ctx.Err()
		}
	}
	for {
		mode := int(c.jsonMode.Load())
		body, err := json.Marshal(c.body(req, mode))
		if err != nil {
			return Response{}, err
		}
		raw, err := c.post(ctx, "/chat/completions", body)
		var se *StatusError
		if errors.As(err, &se) && se.Code == http.StatusBadRequest && req.Schema != nil && mode < 2 &&
			strings.Contains(strings.ToLower(se.Body), "response_format") {
			// The server does not support this response_format: step down once
			// for the whole client and ask again.
			c.jsonMode.CompareAndSwap(int32(mode), int32(mode+1))
			continue
		}
		if err != nil {
			return Response{}, err
		}
		var out struct {
			ID      string `json:"id"`
			Choices []struct {
				Message      Message `json:"message"`
				FinishReason string  `json:"finish_reason"`
			} `json:"choices"`
			Usage Usage `json:"usage"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			return Response{}, fmt.Errorf("llm: malformed completion: %v", err)
		}
		if len(out.Choices) == 0 {
			return Response{}, fmt.Errorf("llm: completion %s has no choices", out.ID)
		}
		ch := out.Choices[0]
		return Response{ID: out.ID, Message: ch.Message, FinishReason: ch.FinishReason, Usage: out.Usage}, nil
	}
}

func (c *Client) body(req Request, mode int) map[string]any {
	b := map[string]any{
		"model":       c.Model,
		"messages":    req.Messages,
		"temperature": c.Temperature,
	}
	if c.MaxTokens > 0 {
		b["max_tokens"] = c.MaxTokens
	}
	if len(req.Tools) > 0 {
		b["tools"] = req.Tools
	}
	if req.Schema != nil {
		switch mode {
		case 0:
			name := req.SchemaName
			if name == "" {
				name = "output"
			}
			b["response_format"] = map[string]any{"type": "json_schema",
				"json_schema": map[string]any{"name": name, "schema": req.Schema, "strict": false}}
		case 1:
			b["response_format"] = map[string]any{"type": "json_object"}
		}
	}
	return b
}

// post sends body to path and returns the response body, retrying 429,
// 5xx, timeouts and transport errors with exponential backoff.
func (c *Client) post(ctx context.Context, path string, body []byte) ([]byte, error) {
	retries := c.Retries
	if retries == 0 {
		retries = 4
	}
	delay := c.Backoff
	if delay == 0 {
		delay = time.Second
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	url := strings.TrimRight(c.BaseURL, "/") + path
	for attempt := 0; ; attempt++ {
		raw, retryAfter, err := c.once(ctx, hc, url, body, timeout)
		if err == nil {
			return raw, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var se *StatusError
		retryable := !errors.As(err, &se) || se.Code == http.StatusTooManyRequests || se.Code >= 500
		if !retryable || attempt >= retries {
			return nil, err
		}
		wait := delay<<attempt + time.Duration(rand.Int64N(int64(delay)/2+1))
		if retryAfter > wait {
			wait = retryAfter
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *Client) once(ctx context.Context, hc *http.Client, url string, body []byte, timeout time.Duration) ([]byte, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		var after time.Duration
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			after = time.Duration(s) * time.Second
		}
		return nil, after, &StatusError{Code: resp.StatusCode, Body: string(raw)}
	}
	return raw, 0, nil
}

// Embed returns one embedding per text from /embeddings.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	body, err := json.Marshal(map[string]any{"model": c.EmbeddingModel, "input": texts})
	if err != nil {
		return nil, err
	}
	raw, err := c.post(ctx, "/embeddings", body)
	if err != nil {
		return nil, err
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("llm: malformed embeddings: %v", err)
	}
	vecs := make([][]float64, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(texts) {
			return nil, fmt.Errorf("llm: embedding index %d out of range", d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	for i, v := range vecs {
		if v == nil {
			return nil, fmt.Errorf("llm: no embedding for input %d", i)
		}
	}
	return vecs, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
