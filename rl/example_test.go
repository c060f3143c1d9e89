package rl_test

import (
	"context"
	"fmt"
	"log"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/openai"
	"github.com/wasmenv/wasmenv/runtime"
)

// Roll out every task of a bundle in groups of 8 with a model served by
// vLLM, score with AWM's reward, and write trajectories for a trainer.
func Example() {
	ctx := context.Background()
	env, err := runtime.Load(ctx, "store.wasm", runtime.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer env.Close()
	policy := &openai.Policy{
		Client: openai.NewClient("http://127.0.0.1:8000/v1", "", 128), // or $OPENAI_BASE_URL
		Model:  "Qwen/Qwen3-8B",
	}
	out, err := rl.CreateJSONL("rollouts.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	sum, err := rl.Run(ctx, []*runtime.Env{env}, policy, rl.Config{
		Group: 8, MaxTurns: 20, Reward: rl.AWM{}, Normalize: true,
	}, out)
	if err != nil {
		out.Abort()
		log.Fatal(err)
	}
	if err := out.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("success %.0f%%, %d format errors\n", 100*sum.SuccessRate(), sum.FormatErrors)
}
