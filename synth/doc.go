// Package synth turns a database into a trainable environment: tools from
// the schema, tasks from executing tool chains on the data, verifiers from
// the resulting state. It needs no LLM; the LLM pipeline (synth/llm) builds
// on the same parts.
//
// The parts, one concept per package:
//
//   - dbmodel: read a SQLite database (or import JSON collections) into a
//     model: keys, references (declared and inferred), types, enumerations,
//     natural keys.
//   - toolgen: the model → Go tool source (get, find by natural key, list
//     with filters, follow references both ways, create, update, delete),
//     plus a description of every tool's parameters and outputs.
//   - graph: the tool dependency graph (which output feeds which parameter;
//     strong, weak, independent; external vs internal parameters).
//   - tasks: sample chains on the graph, execute them in episodes, and turn
//     the results into tasks with checks, answers and instructions.
//   - gates: the quality gates every kept task passes.
//   - emit: write the environment source directory atomically.
//
// FromDB runs the whole pipeline.
package synth
