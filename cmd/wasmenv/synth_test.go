package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// TestSynthFromDBAndGraph runs synth from-db on an example environment's
// directory (its database is built first), then tests the result with
// wasmenv test, and prints the tool graph.
func TestSynthFromDBAndGraph(t *testing.T) {
	dir := t.TempDir()
	out, bundle := filepath.Join(dir, "store-synth"), filepath.Join(dir, "store-synth.wasm")
	stdout, stderr, code := run(t, "", "synth", "from-db", "../../envs/store", "-o", out, "--bundle", bundle, "--tasks", "40", "--seed", "2")
	if code != 0 || !strings.Contains(stdout, "kept 40") || !strings.Contains(stdout, "smoke tests passed 40/40") {
		t.Fatalf("from-db: %d\n%s\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"env.yaml", "schema.sql", "seed.sql", "tasks.jsonl", "tools/orders_tools.go", "graph.dot", "synth-summary.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	stdout, stderr, code = run(t, "", "test", bundle)
	if code != 0 || !strings.Contains(stdout, "ok store: 40 tasks") {
		t.Fatalf("test: %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, _, code = run(t, "", "synth", "graph", bundle, "--dot")
	if code != 0 || !strings.HasPrefix(stdout, "digraph tools {") || !strings.Contains(stdout, `"find_customer_by_email" -> "list_orders_of_customer"`) {
		t.Fatalf("graph --dot: %d %.300s", code, stdout)
	}
	stdout, _, code = run(t, "", "synth", "graph", bundle)
	var g struct {
		Nodes []struct{ Tool string }     `json:"nodes"`
		Edges []struct{ Strength string } `json:"edges"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &g) != nil || len(g.Nodes) < 100 { // the CRUD toolset's 100 tools and the domain actions
		t.Fatalf("graph json: %d %.300s", code, stdout)
	}
	// A database where no row can be named: the tools are written, and a
	// clear error says why there are no tasks.
	noKeys := filepath.Join(dir, "nokeys.sqlite")
	conn, err := sqlite3.Open(noKeys)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER); INSERT INTO t VALUES (1, 2);"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	_, stderr, code = run(t, "", "synth", "from-db", noKeys, "-o", filepath.Join(dir, "nokeys"))
	if code == 0 || !strings.Contains(stderr, "no task could be made") {
		t.Errorf("no natural key: %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "nokeys", "tools", "t_tools.go")); err != nil {
		t.Error("tools not written:", err)
	}
	// Bad input: a clear error, nothing written.
	_, stderr, code = run(t, "", "synth", "from-db", filepath.Join(dir, "missing.db"), "-o", filepath.Join(dir, "x"))
	if code == 0 || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing source: %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Error("output written for a failed run")
	}
	notDB := filepath.Join(dir, "notes.txt")
	os.WriteFile(notDB, []byte("hello"), 0o644)
	_, stderr, code = run(t, "", "synth", "from-db", notDB, "-o", filepath.Join(dir, "y"))
	if code == 0 || !strings.Contains(stderr, "wasmenv:") {
		t.Errorf("not a database: %d %s", code, stderr)
	}
}
