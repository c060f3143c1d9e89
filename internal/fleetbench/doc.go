// Package fleetbench measures the fleet (package fleet) against the
// in-process engine: rollouts/s and steps/s of one run planned alike, in
// this process and on 1, 2, 4 … `wasmenv worker` processes over an
// embedded NATS server on loopback, and the cost NATS adds per job. It
// backs `wasmenv fleet-bench` and the figures of docs/SCALING.md.
package fleetbench
