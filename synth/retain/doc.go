// Package retain is Agent-World's retention gate: before an environment is
// kept, an agent (a model, through rl's agent loop, seeing only what an
// agent sees: the policy as the system prompt, the tools, the user's
// opening or a simulated user) plays each task k times. A task some attempt
// solves is kept with its measured pass rate as its difficulty. A task no
// attempt solves is examined: a fault of the environment (an ambiguous
// instruction, a verifier that rejects a right solution, a tool bug) drops
// the task with its reason; a fault of the agent keeps it, marked hard.
//
// The examiner is a model too (Examiner, LLMExaminer), shown the task, its
// ground truth, its checks and every attempt; an attempt that hit an
// environment error (a tool that crashed, an episode that could not be
// scored) is the environment's fault without asking. synth llm, synth
// from-db and wasmenv arena run the same gate (docs/SYNTHESIS.md).
package retain
