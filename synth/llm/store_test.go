package llm

import (
	"os"
	"path/filepath"
	"testing"
)

// Artifacts, reports and prompt files are ordinary files (0644), like the
// rest of what wasmenv writes; they were once created 0600.
func TestStoreFilesAreReadable(t *testing.T) {
	dir := t.TempDir()
	s := store{dir: dir}
	key := s.key("stage", "model")
	if err := s.put(key, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	var got map[string]int
	if ok, err := s.get(key, &got); !ok || err != nil || got["a"] != 1 {
		t.Fatalf("get: %v %v %v", ok, err, got)
	}
	fi, err := os.Stat(s.path(key))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("artifact mode %v, want 0644", fi.Mode().Perm())
	}
	rep := filepath.Join(dir, "reports", "x.json")
	if err := writeFile(rep, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(rep); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("report: %v %v", fi.Mode(), err)
	}
}
