// Package openai is the rollout policy and simulated user for any
// OpenAI-compatible chat-completions server: vLLM, SGLang, llama.cpp's
// server, hosted APIs, and rl/learner's own server.
//
// The client keeps many requests in flight under a concurrency limit,
// retries transient failures (429, 5xx, network errors, a request past its
// own timeout) with exponential backoff, and honours OPENAI_BASE_URL and
// OPENAI_API_KEY as the OpenAI SDKs do. It asks for logprobs and, with
// vLLM's extension, token ids, and hands them to the trajectory when the
// server returns them.
package openai
