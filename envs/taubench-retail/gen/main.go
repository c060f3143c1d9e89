// Command gen writes ../tasks.jsonl from the τ-bench reference episodes in
// ../testdata: one task per episode, with τ-bench's user instruction, the
// episode's calls as ground truth, τ-bench's reward (final state equality)
// and, when the task has expected outputs, τ-bench's output check
// (contains_all).
//
// Run from envs/taubench-retail: go run ./gen
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/wasmenv/wasmenv/bench/taubench"
)

type answer struct {
	Value string `json:"value"`
	Match string `json:"match"`
}

type task struct {
	ID          string          `json:"id"`
	Instruction string          `json:"instruction"`
	Calls       []taubench.Call `json:"calls"`
	Checks      []string        `json:"checks"`
	Answer      *answer         `json:"answer,omitempty"`
	Reward      string          `json:"reward"`
}

func main() {
	var out bytes.Buffer
	for _, split := range []string{"test", "dev"} {
		eps, err := taubench.LoadRefs("testdata/" + split + "_ref.jsonl")
		if err != nil {
			log.Fatal(err)
		}
		for n, ep := range eps {
			if ep.ID != fmt.Sprintf("%s-%d", split, n) || ep.Instruction == "" {
				log.Fatalf("unexpected id %s or empty instruction", ep.ID)
			}
			t := task{ID: ep.ID, Instruction: ep.Instruction, Calls: ep.Calls, Checks: []string{}, Reward: "state"}
			if len(ep.ExpectedOutputs) > 0 {
				v, err := json.Marshal(ep.ExpectedOutputs)
				if err != nil {
					log.Fatal(err)
				}
				t.Answer = &answer{Value: string(v), Match: "contains_all"}
			}
			if t.Calls == nil {
				t.Calls = []taubench.Call{}
			}
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(t); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := os.WriteFile("tasks.jsonl", out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
