// Package design is the model route of synth from-db (--llm): a chat
// model designs the domain over a real database — whom the agent serves
// and how they identify themselves, the domain actions (in toolgen's
// Action vocabulary: a status with its allowed moves, a milestone, a
// quantity drawn from a stock or balance), the refusal wording and the
// policy's rules — and rewrites the procedural tasks' instructions as a
// person in the domain would say them.
//
// Every answer is data, never code: it is parsed as JSON and validated
// against the schema and the rows (Validate) before toolgen renders it;
// synth's smoke stage then gates each kept action (one call that must
// succeed, one its rules must refuse with nothing changed), and what
// fails goes back to the model as a repair prompt, a bounded number of
// times. What still fails is dropped with its reason (Report). A rewrite
// of an instruction is kept only when every value the ground truth takes
// from the user is still in it, the expected answer is not, and it names
// no value the original did not (another row's); otherwise the procedural
// wording stays. Checks and answers never change.
//
// Replay serves a recording of the model's answers (internal/relay's
// format, keyed by the whole request) in place of an endpoint, so a run
// recorded once is reproduced with no model.
package design
