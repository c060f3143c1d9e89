// Package chatapi is the one client of OpenAI-compatible chat-completions
// servers (vLLM, SGLang, llama.cpp's server, hosted APIs): the wire types of
// a request and a response, tools, tool calls, logprobs, vLLM's token ids
// and usage included, and a Client that carries them.
//
// The Client keeps many requests in flight under a concurrency limit,
// retries transient failures (429, 408, 5xx, network errors, an attempt
// past its own timeout) with capped exponential backoff and jitter, honours
// a longer Retry-After, and never retries another 4xx. rl/openai (rollout
// policy, simulated user) and synth/llm (the synthesis pipeline) build their
// own features on it.
package chatapi
