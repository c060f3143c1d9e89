// Package chatapi is wasmenv's one chat model and its one client of
// OpenAI-compatible chat-completions servers (vLLM, SGLang, llama.cpp's
// server, hosted APIs).
//
// Message, ToolCall and FunctionCall are the chat model every package
// shares: rl.Message (the trajectory format) and llm.Message are these
// types. Request and Response carry them; the Client converts to and from
// the wire (null content, arguments as a string or an object, reasoning
// content, logprobs, vLLM's token ids, usage), in one place.
//
// The Client keeps many requests in flight under a concurrency limit,
// retries transient failures (429, 408, 5xx, network errors, an attempt
// past its own timeout) with capped exponential backoff and jitter, honours
// a longer Retry-After, and never retries another 4xx. Its defaults are
// the ones every caller gets (DefaultRetries, DefaultBackoff,
// DefaultTimeout, DefaultMaxResponseBytes); BaseURL is the one reader of
// $OPENAI_BASE_URL. Errors: a refusal is a *StatusError that errors.Is
// ErrStatus; a body over the cap is ErrTooLarge. rl/openai (rollout
// policy, simulated user) and synth/llm (the synthesis pipeline) build
// their own features on it.
package chatapi
