package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// `synth from-db` over two corpus databases: the batch in this process
// writes for each what `synth from-db` writes for it alone, and the batch on
// two `wasmenv worker` processes writes the same files.
func TestSynthBatchOnFleet(t *testing.T) {
	dir := t.TempDir()
	var dbs []string
	for _, name := range []string{"hr", "sh_times"} {
		script, err := os.ReadFile(filepath.Join("..", "..", "synth", "testdata", "corpus", name+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".sqlite")
		conn, err := sqlite3.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Exec(string(script)); err != nil {
			t.Fatal(err)
		}
		conn.Close()
		dbs = append(dbs, path)
	}
	flags := []string{"--tasks", "8", "--seed", "5"}
	alone := filepath.Join(dir, "alone")
	if _, stderr, code := run(t, "", append([]string{"synth", "from-db", dbs[0], "-o", filepath.Join(alone, "hr")}, flags...)...); code != 0 {
		t.Fatalf("from-db hr: %s", stderr)
	}
	batch := filepath.Join(dir, "batch")
	if _, stderr, code := run(t, "", append(append([]string{"synth", "from-db"}, dbs...), append(flags, "--jobs", "2", "-o", batch)...)...); code != 0 {
		t.Fatalf("batch: %s", stderr)
	}
	if got, want := envTree(t, filepath.Join(batch, "hr")), envTree(t, filepath.Join(alone, "hr")); got != want {
		t.Fatalf("the batch's hr differs from hr alone:\n%.2000s\n---\n%.2000s", got, want)
	}
	want := envTree(t, batch)
	if !strings.Contains(want, "== sh-times/env.yaml") {
		t.Fatalf("the batch wrote no sh-times environment")
	}

	// On the fleet, with a fleet key: jobs, results and their archives signed.
	url := startCluster(t)
	key := filepath.Join(dir, "fleet.key")
	os.WriteFile(key, []byte(strings.Repeat("0123456789", 4)), 0o600)
	startWorkerProcs(t, url, 2, "--fleet-key", key)
	onFleet := filepath.Join(dir, "fleet")
	stdout, stderr, code := run(t, "", append(append([]string{"synth", "from-db"}, dbs...), append(flags, "--nats", url, "--fleet-key", key, "-o", onFleet)...)...)
	if code != 0 || !strings.Contains(stdout, "sh-times (from sh_times.sqlite)") {
		t.Fatalf("--nats: %d %s %s", code, stdout, stderr)
	}
	if got := envTree(t, onFleet); got != want {
		t.Fatalf("the fleet's environments differ from the local batch's")
	}
	// The batch again into the same directory: it replaces nothing.
	if _, stderr, code := run(t, "", append(append([]string{"synth", "from-db"}, dbs...), append(flags, "--nats", url, "--fleet-key", key, "-o", onFleet)...)...); code == 0 || !strings.Contains(stderr, "exists") {
		t.Fatalf("a batch over environments it did not write: %d %s", code, stderr)
	}
	if got := envTree(t, onFleet); got != want {
		t.Fatalf("the second batch changed the environments")
	}
	if _, stderr, code := run(t, "", "synth", "from-db", dbs[0], dbs[0], "-o", filepath.Join(dir, "x")); code == 0 || !strings.Contains(stderr, "both make") {
		t.Fatalf("one database twice: %d %s", code, stderr)
	}
}

// envTree lists every file under dir with its content, the wall-clock
// seconds of synth-summary.json blanked.
func envTree(t *testing.T, dir string) string {
	t.Helper()
	seconds := regexp.MustCompile(`"seconds": [0-9.e+-]+`)
	var buf bytes.Buffer
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if filepath.Base(p) == "synth-summary.json" {
			b = seconds.ReplaceAll(b, []byte(`"seconds": 0`))
		}
		rel, _ := filepath.Rel(dir, p)
		buf.WriteString("== " + filepath.ToSlash(rel) + "\n")
		buf.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 {
		t.Fatalf("%s is empty", dir)
	}
	return buf.String()
}
