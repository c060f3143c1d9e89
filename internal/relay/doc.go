// Package relay is an OpenAI-compatible chat-completions endpoint answered
// by whoever reads its files: each request is written out as a readable
// prompt, and the relay waits for an answer file beside it. It lets a
// model that cannot be reached over HTTP from this machine (a chat model
// answering through its file tool) drive wasmenv's model-facing code for
// real: synth llm, the retention gate, rollouts.
//
// Every exchange is recorded in internal/llmreplay's format (index.json of
// entries keyed by llmreplay.RequestKey, one chat-completion body per
// answer), so tests replay a relayed run through a real HTTP server with
// no model.
//
// Files, for request N (six digits) under Dir:
//
//	pending/N.prompt.md    the request to read: response format, tools, messages
//	pending/N.request.json the request body as it came
//	pending/N.answer.txt   written by the answerer: the content, as it is
//	pending/N.answer.json  or: {"content": "...", "tool_calls": [{"name": "...", "arguments": {...}}]}
//	record/index.json, record/N.json  the recording
//
// Token counts are not measured by a tokenizer: the relay reports bytes/4
// of the prompt's messages and of the answer, and says so in the record.
package relay
