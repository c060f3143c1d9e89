// Package gates decides which synthesized tasks an environment keeps. A
// task is run for real in episodes of the environment it was made for and
// kept only when:
//
//   - replay: its ground-truth calls all succeed and score 1.0 (with the
//     expected answer, if any, given as the answer);
//   - initial: the untouched initial state, with no answer, scores below 1.0;
//   - nontrivial: every check reads the final state (main), a task that
//     writes has a check that fails on the initial state, and an expected
//     answer is not empty and not given away by the instruction;
//   - leak: the instruction names none of the internal ids the caller says
//     a user would not know;
//   - duplicate: no kept task has the same calls, the same checks and
//     answer, or the same instruction.
//
// A Checker counts what it kept and what each gate dropped. The procedural
// pipeline (synth) and the LLM pipeline (synth/llm) share it.
package gates
