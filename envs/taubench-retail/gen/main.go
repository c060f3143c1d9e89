// Command gen writes ../tasks.jsonl from the τ-bench reference episodes in
// ../testdata: one task per episode, with τ-bench's user instruction, the
// episode's calls as ground truth, τ-bench's reward (final state equality)
// and, when the task has expected outputs, τ-bench's output check
// (contains_all).
//
// Run from envs/taubench-retail: go run ./gen
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"os"
)

type call struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type answer struct {
	Value string `json:"value"`
	Match string `json:"match"`
}

type task struct {
	ID          string   `json:"id"`
	Instruction string   `json:"instruction"`
	Calls       []call   `json:"calls"`
	Checks      []string `json:"checks"`
	Answer      *answer  `json:"answer,omitempty"`
	Reward      string   `json:"reward"`
}

func main() {
	var out bytes.Buffer
	for _, split := range []string{"test", "dev"} {
		f, err := os.Open("testdata/" + split + "_ref.jsonl")
		if err != nil {
			log.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		n := 0
		for sc.Scan() {
			var ep struct {
				ID              string   `json:"id"`
				Instruction     string   `json:"instruction"`
				ExpectedOutputs []string `json:"expected_outputs"`
				Calls           []call   `json:"calls"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ep); err != nil {
				log.Fatal(err)
			}
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
				t.Calls = []call{}
			}
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(t); err != nil {
				log.Fatal(err)
			}
			n++
		}
		if err := sc.Err(); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
	if err := os.WriteFile("tasks.jsonl", out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
