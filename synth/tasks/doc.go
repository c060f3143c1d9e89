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
// entry.go picks where a chain starts and walk.go walks the graph, with
// only the hops a person makes (context.go: at most two relations per
// description, a context sentence before a row two away); describe.go,
// naming.go and roles.go name rows the way a person would, and nouns.go
// names rows for what they are to their parent (a flight's reservations,
// an order's lines); phrase.go is the instruction grammar and words.go
// the column words; read.go, which.go ("Which city is X in?"), count.go,
// aggregate.go and sum.go ask questions, with answers matched in the
// forms people write them (answers.go); write.go, edit.go (values that
// fit the row, places.go for addresses), actions.go (domain actions),
// create.go and link.go (link rows by name) make changes, and sense.go
// holds the writes that break a domain's sense and are not made; checks.go
// writes the checks; difficulty.go estimates how hard a task is;
// rewrite.go is the optional LLM rewrite.
// Every candidate passes synth/gates before it is kept, with the
// distractors and wrong trajectories the walk found.
package tasks
