// Package bench measures wasmenv side by side with the ways agent
// environments reset state today, on one bundle and one workload.
//
// Figures (see docs/BENCHMARKS.md): reset latency after a typical write
// workload; step latency per tool, split into read and write tools;
// throughput with 1 to 1,000 concurrent episodes; resident memory per idle
// and per active episode; cold start from the bundle on disk to the first
// completed call, with and without the compile cache; bundle size; and reset
// latency against database size (1, 10, 100 MB, grown at run time).
//
// Systems: wasmenv itself (wazero, and wasmtime when built with the
// wasmtime tag) and two baselines on the same database and calls:
//
//   - filecopy: each episode is a SQLite file; reset copies the pristine
//     file over it and reopens it (the AgentWorldModel-style reset).
//   - serdes: each episode is an in-memory database; reset deserializes the
//     pristine image into it (ncruces ext/serdes).
//
// Baseline steps run the tool's SQL directly on the host (no sandbox, no
// schema validation): what a Python tool function over sqlite3 does. They
// exist only for the benchmark environment in bench/testdata/benchenv, whose
// tools this package knows; on another bundle the workload is the bundle's
// ground-truth task calls (those without a setup that succeed on the
// initial state) and the baselines report resets only. Replayed outside
// their task, some of those calls meet a state they already made and
// answer with a tool error: that is timed as a step like any other; only
// an environment failure stops the run. The reset-versus-size curve grows
// another bundle's database with a filler table of its own.
package bench
