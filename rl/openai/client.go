package openai

import "github.com/wasmenv/wasmenv/internal/chatapi"

// Client talks to one OpenAI-compatible server; see internal/chatapi for
// its retries, timeout and concurrency limit.
type Client = chatapi.Client

// ChatRequest is a chat-completions request.
type ChatRequest = chatapi.Request

// ChatResponse is a chat-completions response.
type ChatResponse = chatapi.Response

// ErrStatus is what every StatusError unwraps to: the server refused the
// request and the client gave up.
var ErrStatus = chatapi.ErrStatus

// StatusError is a response the client gave up on; errors.As gives its
// status and body.
type StatusError = chatapi.StatusError

// DefaultBaseURL is used when neither the flag nor OPENAI_BASE_URL is set.
const DefaultBaseURL = chatapi.DefaultBaseURL

// NoRetries as Client.Retries retries nothing (0 means the default).
const NoRetries = chatapi.NoRetries

// NewClient returns a client for baseURL (else $OPENAI_BASE_URL, else
// OpenAI's) with apiKey (else $OPENAI_API_KEY) and a concurrency limit
// (< 1: 64).
func NewClient(baseURL, apiKey string, concurrency int) *Client {
	return chatapi.New(baseURL, apiKey, concurrency)
}
