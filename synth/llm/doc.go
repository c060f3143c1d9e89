// Package llm is the LLM pipeline of synth: it asks an OpenAI-compatible
// chat-completions endpoint for new environments, stage by stage in the
// order of Agent World Model (scenarios → tasks → schema → sample data →
// tool spec → tool tests → Go tool code → verifiers), executes every stage's
// output (SQL in a scratch SQLite database, Go through the real compiler,
// tools and tasks in real episodes) and feeds the errors back until the
// stage passes or its attempts run out, keeping the best attempt.
//
// Before an environment is kept it passes quality assessment: every tool
// passes generated positive and negative test calls, with a judge telling
// bad tests from bad code (EnvFactory); a test agent and a checker run N
// rounds against the built bundle and must reach a pass rate (EnvScaler);
// each task's ground truth scores 1.0 and its initial state less.
//
// Prompts are text/template files under prompts/ that a user may copy and
// edit (Config.PromptDir); every stage's JSON output is validated against
// the JSON Schema in the same directory. Stage results are stored on disk
// keyed by a hash of their inputs, so an interrupted batch resumes where it
// stopped without asking the model again.
package llm
