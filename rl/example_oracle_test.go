package rl_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// Roll out every task of the store example in groups of two with the
// oracle policy (each task's ground-truth calls): the check that an
// environment's tasks can be solved, before a model is trained on them.
func Example_oracle() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "store-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := envs.Extract("store", dir); err != nil {
		log.Fatal(err)
	}
	bundle, err := compiler.Build(ctx, dir, compiler.Options{})
	if err != nil {
		log.Fatal(err)
	}
	env, err := runtime.LoadBundle(ctx, bundle, runtime.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer env.Close()
	sum, err := rl.Run(ctx, []*runtime.Env{env}, rl.Oracle{}, rl.Config{Group: 2, Reward: rl.AWM{}}, rl.NewJSONL(io.Discard))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d tasks, %d rollouts, success %.0f%%\n", len(bundle.Tasks), sum.Rollouts, 100*sum.SuccessRate())
	// Output: 16 tasks, 32 rollouts, success 100%
}
