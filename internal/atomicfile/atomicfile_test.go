package atomicfile_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
)

// entries lists the names in dir, so a test sees any temporary file left.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileModeAndContent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := atomicfile.WriteFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "two" {
		t.Fatalf("read %q, %v", b, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644", fi.Mode().Perm())
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Fatalf("dir holds %v, want only out.json", got)
	}
}

func TestWriteFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := atomicfile.WriteFile(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := atomicfile.Write(path, func(w io.Writer) error {
		io.WriteString(w, "half of the new")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("path holds %q after a failed write", b)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Fatalf("dir holds %v: temporary file left", got)
	}
}

func TestCommitFailureRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	if err := os.Mkdir(path, 0o755); err != nil { // a directory cannot be replaced by a file
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(path, []byte("data")); err == nil {
		t.Fatal("renaming over a non-empty directory succeeded")
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Fatalf("dir holds %v: temporary file left", got)
	}
}

func TestAbortAndClosed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	f, err := atomicfile.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "partial")
	f.Abort()
	f.Abort() // twice is fine
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("path exists after Abort: %v", err)
	}
	if err := f.Commit(); !errors.Is(err, atomicfile.ErrClosed) {
		t.Fatalf("Commit after Abort: %v", err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, atomicfile.ErrClosed) {
		t.Fatalf("Write after Abort: %v", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Fatalf("dir holds %v after Abort", got)
	}

	g, err := atomicfile.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(g, "whole")
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	g.Abort() // after Commit: nothing
	if b, _ := os.ReadFile(path); string(b) != "whole" {
		t.Fatalf("read %q", b)
	}
}

// The error names the file asked for and its missing folder, never the
// temporary name the user did not choose (`export verl-tools -o
// verl/tools.yaml` once said "open verl/.tools.yaml.tmp-1502993816").
func TestMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "f")
	err := atomicfile.WriteFile(path, nil)
	if err == nil {
		t.Fatal("wrote into a missing directory")
	}
	want := fmt.Sprintf("write %s: the folder %s does not exist", path, filepath.Dir(path))
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// Two writers of one path never share a temporary file: each commit is
// whole, and the last one wins (cmd/wasmenv/rollout.go once wrote
// path+".tmp" for every run).
func TestConcurrentWritersOfOnePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "summary.json")
	var wg sync.WaitGroup
	files := make([]*atomicfile.File, 8)
	for i := range files {
		f, err := atomicfile.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = f
	}
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				fmt.Fprintf(f, "%d", i)
			}
		}()
	}
	wg.Wait()
	for _, f := range files {
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 1000 {
		t.Fatalf("%d bytes: writers interleaved", len(b))
	}
	for _, c := range b {
		if c != '7' {
			t.Fatalf("content mixes writers: %q...", b[:20])
		}
	}
}
