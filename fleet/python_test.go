package fleet_test

import (
	"bytes"
	"testing"

	"github.com/wasmenv/wasmenv/fleet"
)

// A Python environment (envs/pylibrary: tools in CPython under wazero)
// runs on the fleet unchanged: the bundle travels to the workers as any
// other (its module is the stub holding the tool files), each worker runs
// it with the interpreter it ships, and a fleet of 1 or 2 workers writes
// the bytes of the single-process run, for the oracle and the random
// policies, beside a Go bundle.
func TestFleetRunsPythonBundle(t *testing.T) {
	py, store := bundle(t, "pylibrary"), bundle(t, "store")
	for _, workers := range []int{1, 2} {
		url := startServer(t)
		startWorkers(t, url, workers, fastOpts)
		for _, spec := range []*fleet.Spec{
			{Group: 2, Seed: 5, MaxTurns: 20, Policy: fleet.PolicySpec{Kind: "oracle"}},
			{Group: 3, Seed: 11, MaxTurns: 6, Policy: fleet.PolicySpec{Kind: "random"}},
		} {
			got, err := drive(t, url, spec, py, store)
			if err != nil {
				t.Fatal(err)
			}
			want := reference(t, spec, py, store)
			if !bytes.Equal(got, want) {
				t.Fatalf("%d workers, %s: %d bytes, the local run %d; they differ", workers, spec.Policy.Kind, len(got), len(want))
			}
			if spec.Policy.Kind == "oracle" && !bytes.Contains(got, []byte(`"env":"pylibrary"`)) {
				t.Fatalf("no pylibrary record in the output:\n%.600s", got)
			}
		}
	}
}

// The same through a `wasmenv worker` process (the CLI's own copy of the
// interpreter, its bundle cache on disk).
func TestFleetWorkerProcessRunsPythonBundle(t *testing.T) {
	py := bundle(t, "pylibrary")
	url := startServer(t)
	startWorkerProcess(t, url, fastOpts)
	spec := &fleet.Spec{Group: 2, Seed: 5, MaxTurns: 20, Policy: fleet.PolicySpec{Kind: "oracle"}}
	got, err := drive(t, url, spec, py)
	if err != nil {
		t.Fatal(err)
	}
	if want := reference(t, spec, py); !bytes.Equal(got, want) {
		t.Fatalf("%d bytes, the local run %d; they differ", len(got), len(want))
	}
}
