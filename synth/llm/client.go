package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wasmenv/wasmenv/internal/chatapi"
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
	// timeout or a dropped connection, with exponential backoff (0:
	// chatapi.DefaultRetries, 5; NoRetries: none).
	Retries int
	// Backoff is the first retry's delay (0: 500 ms), doubled each time up
	// to 30 s, with jitter; a Retry-After header wins when it is longer.
	Backoff time.Duration
	// Timeout bounds one request attempt (0: 120 s; the command's
	// --request-timeout is 5 minutes, for long generations).
	Timeout time.Duration
	// MaxResponseBytes caps one answer's body (0: DefaultMaxAnswerBytes,
	// 4 MiB); a longer one fails the request.
	MaxResponseBytes int64
	// OnRetry, when set, hears of each retry before its wait (the command
	// prints it, so a slow or absent endpoint is not a silent terminal).
	OnRetry func(attempt int, wait time.Duration, err error)
	// HTTP is the transport (default http.DefaultClient).
	HTTP *http.Client
	// Prices turns tokens into cost; zero prices count tokens only.
	Prices Prices

	limit    *chatapi.Limit
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
	c.limit = chatapi.NewLimit(n)
}

// NoRetries as Client.Retries retries nothing.
const NoRetries = chatapi.NoRetries

// transport is the shared chat-completions client with this client's
// settings; its zero fields take chatapi's defaults.
func (c *Client) transport() *chatapi.Client {
	maxBytes := c.MaxResponseBytes
	if maxBytes == 0 {
		maxBytes = DefaultMaxAnswerBytes
	}
	return &chatapi.Client{BaseURL: c.BaseURL, APIKey: c.APIKey, HTTP: c.HTTP,
		Timeout: c.Timeout, Retries: c.Retries, Backoff: c.Backoff, OnRetry: c.OnRetry, Limit: c.limit,
		MaxResponseBytes: maxBytes}
}

// Message is one chat message: wasmenv's one chat model (internal/chatapi).
type Message = chatapi.Message

// ToolCall is a function call requested by the model.
type ToolCall = chatapi.ToolCall

// Usage is token accounting as the server reports it.
type Usage = chatapi.Usage

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

// ErrStatus is what a StatusError unwraps to: the endpoint refused the
// request (a status not retried, or the last retry's).
var ErrStatus = chatapi.ErrStatus

// StatusError carries the endpoint's status, message and body.
type StatusError = chatapi.StatusError

// Chat sends a request, retrying transient failures.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	t := c.transport()
	for {
		mode := int(c.jsonMode.Load())
		resp, err := t.Chat(ctx, c.body(req, mode))
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
		ch := resp.Choices[0]
		out := Response{ID: resp.ID, Message: ch.Message, FinishReason: ch.FinishReason}
		if resp.Usage != nil {
			out.Usage = *resp.Usage
		}
		return out, nil
	}
}

func (c *Client) body(req Request, mode int) *chatapi.Request {
	temperature := c.Temperature
	b := &chatapi.Request{Model: c.Model, Messages: req.Messages, Temperature: &temperature, MaxTokens: c.MaxTokens}
	if len(req.Tools) > 0 {
		b.Tools = req.Tools
	}
	if req.Schema != nil {
		switch mode {
		case 0:
			name := req.SchemaName
			if name == "" {
				name = "output"
			}
			b.ResponseFormat = &chatapi.ResponseFormat{Type: "json_schema",
				JSONSchema: &chatapi.JSONSchema{Name: name, Schema: req.Schema, Strict: false}}
		case 1:
			b.ResponseFormat = &chatapi.ResponseFormat{Type: "json_object"}
		}
	}
	return b
}

// ErrNoModelList is Models' answer when the server does not list models.
var ErrNoModelList = chatapi.ErrNoModelList

// Models asks the endpoint which models it serves, once and without
// retries (a preflight check: see chatapi.Client.Models).
func (c *Client) Models(ctx context.Context) ([]string, error) {
	return c.transport().Models(ctx, 0)
}

// Embed returns one embedding per text from /embeddings.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	body, err := json.Marshal(map[string]any{"model": c.EmbeddingModel, "input": texts})
	if err != nil {
		return nil, err
	}
	raw, err := c.transport().Post(ctx, "/embeddings", body)
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
