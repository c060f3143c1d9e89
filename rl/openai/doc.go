// Package openai is the rollout policy and simulated user for any
// OpenAI-compatible chat-completions server: vLLM, SGLang, llama.cpp's
// server, hosted APIs, and rl/learner's own server.
//
// The client is internal/chatapi's (shared with synth/llm): many requests
// in flight under a concurrency limit, transient failures (429, 408, 5xx,
// network errors, a request past its own timeout) retried with exponential
// backoff, OPENAI_BASE_URL and OPENAI_API_KEY honoured as the OpenAI SDKs
// do. The policy asks for logprobs and, with vLLM's extension, token ids,
// and hands them to the trajectory when the server returns them.
package openai
