package emit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

func TestWriteAtomicReplace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	e := &Env{Name: "x", Schema: "CREATE TABLE t (id INTEGER PRIMARY KEY);", Tools: map[string][]byte{"a.go": []byte("package tools\n")},
		Tasks: []envpkg.Task{{ID: "t1", Instruction: "hi"}}}
	if err := Write(dir, e); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "tasks.jsonl")); !strings.Contains(string(b), `"id":"t1"`) {
		t.Errorf("tasks.jsonl: %s", b)
	}
	// A bad description fails and leaves the old directory as it was.
	bad := *e
	bad.Tasks = append(bad.Tasks, envpkg.Task{ID: "t1"})
	if err := Write(dir, &bad); err == nil {
		t.Fatal("repeated task id accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "tools", "a.go")); err != nil {
		t.Fatal(err)
	}
	e.Tools = map[string][]byte{"b.go": []byte("package tools\n")}
	if err := Write(dir, e); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tools", "a.go")); !os.IsNotExist(err) {
		t.Error("old file survived the replacement")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("temporary directories left behind: %v", entries)
	}
	// Never replace a directory that is not an environment.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "precious.txt"), []byte("x"), 0o644)
	if err := Write(other, e); err == nil {
		t.Error("replaced a non-environment directory")
	}
}

func TestLiteral(t *testing.T) {
	for v, want := range map[any]string{nil: "NULL", int64(-3): "-3", 2.0: "2.0", "it's": "'it''s'", "a\x00b": "CAST(X'610062' AS TEXT)"} {
		if got := Literal(v); got != want {
			t.Errorf("Literal(%v) = %s, want %s", v, got, want)
		}
	}
	if got := Literal([]byte{1, 255}); got != "X'01ff'" {
		t.Errorf("blob: %s", got)
	}
}

func TestEnvName(t *testing.T) {
	for in, want := range map[string]string{"My Shop.sqlite": "my-shop-sqlite", "__": "env", "Ünï": "n"} {
		if got := EnvName(in); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReferenceOrder: parents first whatever the names' order; a cycle and
// a self-reference do not stop the ordering.
func TestReferenceOrder(t *testing.T) {
	fk := func(to string) dbmodel.ForeignKey {
		return dbmodel.ForeignKey{Columns: []string{"x"}, RefTable: to, RefColumns: []string{"id"}}
	}
	m := &dbmodel.Model{Tables: []*dbmodel.Table{
		{Name: "a_lines", ForeignKeys: []dbmodel.ForeignKey{fk("b_orders")}},
		{Name: "b_orders", ForeignKeys: []dbmodel.ForeignKey{fk("c_customers")}},
		{Name: "c_customers", ForeignKeys: []dbmodel.ForeignKey{fk("c_customers"), fk("d_teams")}},
		{Name: "d_teams", ForeignKeys: []dbmodel.ForeignKey{fk("c_customers")}},
	}}
	var got []string
	for _, tb := range ReferenceOrder(m) {
		got = append(got, tb.Name)
	}
	// The cycle is entered at its first table; everything else follows
	// its parents (a_lines was placed first when a stuck pass took the
	// first unplaced table).
	if o := strings.Join(got, " "); o != "c_customers b_orders d_teams a_lines" {
		t.Errorf("order %v", got)
	}
}
