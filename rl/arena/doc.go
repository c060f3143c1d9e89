// Package arena closes the self-evolving loop of Agent-World (§3.2.2,
// Algorithm 1) over wasmenv's parts: evaluate a policy on held-out
// environments, turn the rollouts into a failure report, diagnose the
// failures (procedurally or with an LLM), and pick targeted tasks for the
// weak environments that a trainer continues on.
//
// The pieces are separate so that each is testable on recorded data:
//
//   - Record is what the arena reads of a rollout (the JSONL line of
//     docs/ROLLOUT.md), so rollouts from any run or trainer can be read;
//   - BuildReport replays every rollout's calls on its bundle (outputs are
//     a function of bundle, task, seed and calls) to recover the typed
//     outcome of each call, and counts outcomes, finish reasons, failing
//     checks and the chain position where a rollout left the ground truth;
//   - a Diagnoser (Procedural, or LLM through internal/chatapi) turns the
//     report into root causes, ranked weak environments and guidelines;
//   - Target picks, from a pool of candidate tasks, those that exercise
//     what the guidelines name.
package arena
