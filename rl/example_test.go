package rl_test

import (
	"context"
	"fmt"
	"log"
	"strings"

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

// Read a rollout file in its full view: the toolset record's tools and
// system prompt go back into each line that names it, with what a compact
// line leaves out (here its group, env hash and reward components); a
// whole line (the older form, or --inline-tools) is read as it is.
func ExampleReadRollouts() {
	file := `{"record":"toolset2","toolset":"t1","env":"mini","env_hash":"h","tools":[{"type":"function","function":{"name":"get","parameters":{"type":"object"}}}],"system":"Be brief."}
{"env":"mini","task":"put-d","index":0,"seed":0,"messages":[{"role":"user","content":"Store d."}],"reward":1,"advantage":0.5,"checks":[{"name":"d stored","passed":true}],"toolset":"t1"}
{"env":"mini","task":"put-d","group":"mini/put-d/0","index":1,"messages":[{"role":"user","content":"Store d."}],"tools":[],"reward":0,"advantage":-0.5}
`
	err := rl.ReadRollouts(strings.NewReader(file), func(r *rl.Rollout) error {
		fmt.Printf("%s #%d: %d tools, %d messages (first: %s), advantage %+.1f, all passed %v\n",
			r.GroupID, r.Index, len(r.Tools), len(r.Messages), r.Messages[0].Role, r.Advantage, r.RewardComponents["all_passed"])
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// mini/put-d/0 #0: 1 tools, 2 messages (first: system), advantage +0.5, all passed 1
	// mini/put-d/0 #1: 0 tools, 1 messages (first: user), advantage -0.5, all passed 0
}
