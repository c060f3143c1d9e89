package fleet_test

import (
	"context"
	"log"
	"os"

	"github.com/nats-io/nats.go"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/fleet"
)

// Run every task of a bundle in groups of 8 on the workers of a NATS
// server (started elsewhere with `wasmenv worker --nats URL`), and write
// the trajectories a local run would write.
func Example() {
	ctx := context.Background()
	nc, err := nats.Connect("nats://127.0.0.1:4222")
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	data, err := os.ReadFile("store.wasm")
	if err != nil {
		log.Fatal(err)
	}
	b, err := fleet.ReadBundle(data) // verified as envpkg verifies a file
	if err != nil {
		log.Fatal(err)
	}
	spec := &fleet.Spec{Group: 8, MaxTurns: 20, Policy: fleet.PolicySpec{Kind: "random"}}
	refs, err := fleet.Plan([]*envpkg.Bundle{b.Bundle}, spec.Tasks)
	if err != nil {
		log.Fatal(err)
	}
	out, err := fleet.CreateOutput("rollouts.jsonl", os.Stdout, false)
	if err != nil {
		log.Fatal(err)
	}
	sum, err := (&fleet.Driver{NC: nc}).Run(ctx, []*fleet.BundleFile{b}, spec, refs, out)
	if err != nil {
		out.Abort()
		log.Fatal(err)
	}
	if err := out.Close(); err != nil {
		log.Fatal(err)
	}
	sum.Print(os.Stderr)
}
