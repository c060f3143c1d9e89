// Package tasks synthesizes tasks by executing tool chains in real
// episodes. A chain starts where a user starts (a row found by a natural
// key, or by first and last name, or name and city), follows references on
// the tool graph (each internal id the next call needs was produced by an
// earlier call: the topology-aware sampling of EnvFactory, over weighted
// random walks), and ends in a question (read task: an expected answer
// with a match rule) or a change (write task: update, conditional update,
// refusal, two changes, delete or create, with whole-state SQL checks that
// no untouched state passes).
//
// Files: driver.go runs attempts and hands candidates to the gates;
// walk.go walks the graph; describe.go names rows the way a person would;
// phrase.go is the instruction grammar; read.go, aggregate.go and write.go
// make the final step; checks.go writes the checks; difficulty.go
// estimates how hard a task is; rewrite.go is the optional LLM rewrite.
// Every candidate passes synth/gates before it is kept, with the
// distractors and wrong trajectories the walk found.
package tasks
