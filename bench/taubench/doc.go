// Package taubench benchmarks the τ-bench retail environment side by side:
// wasmenv (the envs/taubench-retail bundle, copy-on-write resets) against a
// faithful Python re-creation of τ-bench's own approach (baseline.py: reload
// the three JSON files on every reset, tools as functions over dicts, reward
// by hashing the whole data).
//
// Both sides first replay all 135 reference episodes
// (envs/taubench-retail/testdata/*_ref.jsonl) and check every output and every
// final state diff against the references, then time, over all episodes and R
// repeats: the reset, each tool call (split into read and write tools), the
// total wall time of reset + calls, and separately the state hash and the
// reward computation per episode.
//
// One command runs both on the same machine and writes a markdown report and
// the raw JSON:
//
//	go run ./bench/taubench/cmd/taubench -out docs/BENCHMARKS-taubench.md -json bench/taubench/results.json
//
// The package's test checks behaviour only (both sides match the references),
// never timings.
package taubench
