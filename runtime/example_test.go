package runtime_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/runtime"
)

// Build an environment, run an episode on a task, score it, reset it.
func Example() {
	ctx := context.Background()
	out := filepath.Join(os.TempDir(), "wasmenv-example-mini.wasm")
	if _, err := compiler.BuildFile(ctx, "../testdata/envs/mini", out, compiler.Options{}); err != nil {
		panic(err)
	}
	env, err := runtime.Load(ctx, out, runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer env.Close()

	ep, err := env.NewEpisode("put-d", 42) // task, seed
	if err != nil {
		panic(err)
	}
	defer ep.Close()
	res, _ := ep.Call(ctx, "put", []byte(`{"key": "d", "value": "date", "n": 4}`))
	fmt.Println(res.Content, res.IsError)
	res, _ = ep.Call(ctx, "get", []byte(`{"key": "nope"}`))
	fmt.Println(res.Content, res.IsError)

	diff, _ := ep.Diff()
	fmt.Println(string(diff["kv"]["d"]))
	score, _ := ep.Score(ctx, nil)
	fmt.Printf("reward %.1f (%d/%d)\n", score.Reward, score.Passed, score.Total)

	ep.Reset()
	score, _ = ep.Score(ctx, nil)
	fmt.Printf("after reset: reward %.1f\n", score.Reward)
	// Output:
	// ok false
	// Error: key "nope" not found true
	// {"k":"d","v":"date","n":4}
	// reward 1.0 (2/2)
	// after reset: reward 0.5
}
