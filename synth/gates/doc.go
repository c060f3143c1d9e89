// Package gates decides which synthesized tasks an environment keeps. A
// task is run for real in episodes of the environment it was made for
// (through runtime.Candidate: the loaded bundle is never changed) and kept
// only when:
//
//   - replay: its ground-truth calls all succeed and score 1.0 (with the
//     expected answer, if any, given as the answer);
//   - initial: the untouched initial state, with no answer, scores below
//     1.0 (and, with Options.NothingEarnsNothing, no check but a guard
//     holds on it);
//   - nontrivial: every check reads the final state (main., outside SQL
//     comments), a task that writes has a check that fails on the initial
//     state, every check fails on some state tried, and an expected answer
//     is not empty and not given away by the instruction;
//   - wrong: the answer rule rejects wrong answers (empty, a refusal,
//     random text, every letter, a number, and the candidate's
//     distractors: the answers for the rows it could be confused with),
//     and the checks fail on wrong final states (the candidate's wrong
//     trajectories, the ground truth with its last call twice, the ground
//     truth plus a kept task's last write, that kept task alone);
//   - leak: the instruction names none of the internal ids the caller says
//     a user would not know;
//   - duplicate: no kept task has the same calls, the same checks and
//     answer, or the same instruction.
//
// A Checker counts what it kept and what each gate dropped. The procedural
// pipeline (synth) and the LLM pipeline (synth/llm) share it.
package gates
