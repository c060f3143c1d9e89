// Package tasks synthesizes tasks by executing tool chains in real
// episodes. A chain starts where a user starts (a row found by a natural key
// such as an email or a name), follows references on the tool graph (each
// internal id the next call needs was produced by an earlier call: the
// topology-aware sampling of EnvFactory, over weighted random walks), and
// ends in a question (read task: an expected answer with a match rule) or a
// change (write task: update, delete or create, with SQL checks that hold on
// the final state and fail on the initial one, plus a "nothing else
// changed" check). Instructions are rendered from templates and name rows
// the way a user would: by natural keys and distinguishing attributes, never
// by internal ids. Every candidate passes the gates before it is kept.
package tasks
