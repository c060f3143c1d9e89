package taubench_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/bench/taubench"
)

// derivedCase is a line of testdata/derived_ref.jsonl (gen/derived.py): setup
// SQL that changes the data, calls, and τ-bench's outputs on the data
// changed the same way.
type derivedCase struct {
	ID    string `json:"id"`
	Setup string `json:"setup"`
	Calls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"calls"`
	Outputs []string `json:"outputs"`
}

// TestDerivedData checks the searches that read rows derived from the records
// (indexed generated columns, tables kept by triggers: schema.sql) on data the
// shipped files never reach: non-ASCII emails and names (where SQLite's
// lower() is not Python's), an int zip, a duplicate and a non-ASCII product
// name (list_all_product_types built in the guest), and records updated and
// deleted after import (the triggers). Each case is an environment copy whose
// tasks set the data up; outputs must be τ-bench's byte for byte.
func TestDerivedData(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "derived_ref.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []derivedCase
	var tasks strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c derivedCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
		line, _ := json.Marshal(map[string]string{"id": c.ID, "instruction": "derived data: " + c.ID, "setup": c.Setup, "reward": "state"})
		tasks.Write(line)
		tasks.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}

	dir := t.TempDir()
	files := []string{"env.yaml", "schema.sql", "data/users.json", "data/products.json", "data/orders.json"}
	tools, _ := filepath.Glob(filepath.Join("tools", "*.go"))
	files = append(files, tools...)
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(tasks.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	env, _, err := taubench.LoadEnv(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for _, c := range cases {
		ep, err := env.NewEpisode(c.ID, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		for i, call := range c.Calls {
			res, err := ep.Call(ctx, call.Name, call.Arguments)
			if err != nil {
				t.Fatalf("%s call %d %s: %v", c.ID, i, call.Name, err)
			}
			if res.Content != c.Outputs[i] {
				t.Errorf("%s call %d %s %s:\n got %s\nwant %s", c.ID, i, call.Name, call.Arguments, res.Content, c.Outputs[i])
			}
		}
		ep.Close()
	}
}
