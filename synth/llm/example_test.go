package llm_test

import (
	"context"
	"fmt"
	"os"

	"github.com/wasmenv/wasmenv/synth/llm"
)

// Generate five environments with a model served by vLLM on this machine;
// run it again with the same OutDir to resume.
func Example() {
	client := &llm.Client{BaseURL: "http://127.0.0.1:8000/v1", Model: "Qwen/Qwen2.5-Coder-32B-Instruct"}
	client.SetConcurrency(16)
	rep, err := llm.Run(context.Background(), llm.Config{
		Client:       client,
		OutDir:       "out",
		Seeds:        []string{"public libraries", "veterinary clinics"},
		NumScenarios: 5,
		AuthAssumed:  true,
		Progress:     os.Stderr,
	})
	if err != nil {
		fmt.Println(err)
	}
	if rep != nil {
		rep.WriteMarkdown(os.Stdout) // per-stage success, trials, tokens, cost; kept and dropped
	}
}
