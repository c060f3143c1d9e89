// Package loadgen is the load generator of `wasmenv serve-bench`: many
// episodes on a real `wasmenv serve` over loopback HTTP, closed-loop
// clients, client-side latency percentiles and leak checks afterwards.
// It is internal: a harness for the figures in docs/BENCHMARKS-serve.md,
// not an API.
package loadgen
