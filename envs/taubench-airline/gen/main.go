// Command gen writes ../tasks.jsonl from the τ-bench reference episodes in
// ../testdata/test_ref.jsonl: one task per episode, with τ-bench's user
// instruction, the episode's calls as ground truth, τ-bench's reward (final
// state equality) and, when the task has expected outputs, τ-bench's output
// check (contains_all).
//
// Run from envs/taubench-airline: go run ./gen
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
	f, err := os.Open("testdata/test_ref.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for n := 0; sc.Scan(); n++ {
		var ep struct {
			ID              string   `json:"id"`
			Instruction     string   `json:"instruction"`
			ExpectedOutputs []string `json:"expected_outputs"`
			Calls           []call   `json:"calls"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ep); err != nil {
			log.Fatal(err)
		}
		if ep.ID != fmt.Sprintf("test-%d", n) || ep.Instruction == "" {
			log.Fatalf("line %d: unexpected id %q or empty instruction", n+1, ep.ID)
		}
		t := task{ID: ep.ID, Instruction: ep.Instruction, Calls: ep.Calls, Checks: []string{}, Reward: "state"}
		if t.Calls == nil {
			t.Calls = []call{}
		}
		if len(ep.ExpectedOutputs) > 0 {
			v, err := json.Marshal(ep.ExpectedOutputs)
			if err != nil {
				log.Fatal(err)
			}
			t.Answer = &answer{Value: string(v), Match: "contains_all"}
		}
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(t); err != nil {
			log.Fatal(err)
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("tasks.jsonl", out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
