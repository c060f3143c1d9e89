// Command gen writes ../tasks.jsonl from the τ-bench reference episodes in
// ../testdata: one task per episode, whose ground-truth calls are the
// episode's calls and whose reward is τ-bench's (final state equality).
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

type task struct {
	ID          string   `json:"id"`
	Instruction string   `json:"instruction"`
	Calls       []call   `json:"calls"`
	Checks      []string `json:"checks"`
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
				ID     string `json:"id"`
				UserID string `json:"user_id"`
				Calls  []call `json:"calls"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ep); err != nil {
				log.Fatal(err)
			}
			if ep.ID != fmt.Sprintf("%s-%d", split, n) {
				log.Fatalf("unexpected id %s", ep.ID)
			}
			t := task{
				ID: ep.ID,
				Instruction: fmt.Sprintf("τ-bench retail %s task %d for user %s (instruction text not distributed with the reference data)",
					split, n, ep.UserID),
				Calls:  ep.Calls,
				Checks: []string{},
				Reward: "state",
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
