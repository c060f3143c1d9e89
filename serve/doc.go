// Package serve runs many isolated episodes of loaded environments in one
// process and exposes them over HTTP.
//
// Four faces share one episode table:
//
//   - the episode API, JSON over HTTP under /v1 (create a group of identical
//     episodes, call tools, step Gym-style, score, diff, reset, delete), and
//     the same over one WebSocket at /v1/ws, many requests (or batch frames
//     of them) on one connection, each answered as its HTTP route answers
//     it (socket.go);
//   - MCP over streamable HTTP, one endpoint per episode at
//     /v1/episodes/{id}/mcp, served by the official MCP Go SDK;
//   - OpenEnv-compatible routes (/reset, /step, /state, /schema, /metadata
//     the /ws WebSocket session and /mcp) shaped like OpenEnv's HTTPEnvServer,
//     with framework errors typed as OpenEnv's ToolError (openenv_call.go);
//   - NeMo Gym's resources-server routes under /nemo-gym/{env}/ (and at the
//     root with Options.NeMoGymRoot): simple_agent's seed_session, a route
//     per tool and verify (nemogym.go), and gymnasium_agent's reset, step and
//     close, where the server owns the conversation (nemogym_gymnasium.go).
//
// Every episode is a runtime.Episode guarded by a one-slot lock, so calls on
// one episode are serialized while different episodes run in parallel.
// Episode ids come from crypto/rand. Idle episodes are reaped; a full table
// answers 429 with Retry-After. Request bodies, JSON nesting depth and
// response sizes are bounded, every call has a deadline and follows the
// request's context, and a client's mistake is always a 4xx with a JSON
// error body ({"error": {"code", "message"}}), never a 5xx. A tool error
// (unknown tool, arguments that fail the tool's schema, an error returned by
// the tool) is a normal 200 result with is_error set.
//
// Rewards on /step: a step that calls a tool gets reward 0 unless it is the
// last step allowed (max_steps), in which case the episode is truncated and
// scored. A step whose action is {"type": "final", "answer": ...} terminates
// the episode and scores it with that answer. Episodes without a task have
// reward 0 at the end. After the end, further steps are refused (409) until
// the episode is reset.
//
// With Options.User the server plays the simulated user of `wasmenv rollout
// --user` (user.go): the user opens each episode, a step {"type": "message",
// "content": ...} is the agent's words to it, and its stop token ends and
// scores the episode; the task's instruction (the user's goal) is never sent.
// MCP agents talk to the user with the message_user tool, NeMo Gym's
// gymnasium_agent with its step (a reply without calls goes to the user).
//
// Every tool call, whichever face it came through, runs by one rule
// (callEpisode, callHeld in errors.go), and every error answer's code is
// one of codes.go's table, whose fault the Python client types alike.
//
// Memory: an episode's pages live in the Go heap; after episodes close, a
// rate-limited release (release.go) collects them and gives the pages back
// to the OS, so that memory returns in seconds instead of at the runtime's
// next forced collection, and a server under its memory cap does not refuse
// new episodes for memory that is only garbage.
//
// See docs/SERVING.md for the wire formats.
package serve
