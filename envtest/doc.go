// Package envtest checks an environment bundle the way `go test` checks a
// package, so that an author's mistakes surface before an agent is scored
// against them:
//
//   - every ground-truth call names a tool and its arguments pass the
//     tool's input schema (Static: no tool code runs);
//   - every task's ground truth, replayed on a fresh episode, earns reward
//     1.0 (Run);
//   - the empty episode (no calls, no answer) earns less than 1.0 for every
//     task whose ground truth changes state, so the checks test the change;
//   - every check is read-only and evaluates without an error.
//
// `wasmenv build` runs Static on every build and `wasmenv test` runs both;
// synthesis pipelines call Run to drop tasks that would teach nothing.
package envtest
