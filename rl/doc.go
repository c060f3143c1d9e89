// Package rl is the rollout engine: it runs GRPO groups of episodes
// in-process with the runtime, asks a policy for each turn, scores every
// rollout, computes group-relative advantages and hands the trajectories to
// an exporter (JSONL or Parquet).
//
// Plug-ins sit behind one small interface each: a Policy answers a turn
// (random, oracle, or an OpenAI-compatible server in rl/openai), a User plays
// the customer in conversational tasks, a Reward turns a scored episode into
// a scalar with named components, and an Exporter writes finished groups.
//
// The engine owns everything between the policy and the episode: tool-call
// parsing (OpenAI tool_calls or Hermes/Qwen <tool_call> text), AWM's
// meta-tools, budgets, format-error accounting, and closing every episode
// whatever happens, within Limits on what a model can make one rollout
// hold. Rollout is the record a trainer reads; JSONL writes each toolset
// (tools and system prompt) once per file and ReadRollouts restores the
// full view. docs/ROLLOUT.md describes the trajectory format.
package rl
