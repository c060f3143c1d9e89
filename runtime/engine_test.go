package runtime

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Every engine gives the same results and states for the same calls: the
// guest's wall clock, random draws and (deterministic) runtime seeds match.
func TestEnginesAgree(t *testing.T) {
	names := Engines()
	if len(names) == 1 {
		t.Skip("one engine built in")
	}
	run := func(engine string) string {
		e := loadEnvWith(t, "mini", engine)
		ep := newEpisode(t, e, "", 42)
		var out []string
		for _, c := range [][2]string{{"roll", `{}`}, {"put", `{"key":"x","value":"1"}`}, {"roll", `{}`}, {"list", `{}`}, {"get", `{"key":"zz"}`}} {
			out = append(out, call(t, ep, c[0], c[1]).Content)
		}
		h, err := ep.StateHash()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(append(out, h), "\n")
	}
	want := run(names[0])
	for _, n := range names[1:] {
		if got := run(n); got != want {
			t.Errorf("%s and %s differ:\n%s\n--\n%s", names[0], n, want, got)
		}
	}
}

// Stopping a runaway call leaves the calls running beside it on the same Env
// alone (wasmtime interrupts through an engine-wide epoch).
func TestInterruptTargetsOneCall(t *testing.T) { eachEngine(t, testInterruptTargetsOneCall) }

func testInterruptTargetsOneCall(t *testing.T, engine string) {
	e := loadEnvWith(t, "mini", engine)
	loop, busy := newEpisode(t, e, "", 1), newEpisode(t, e, "", 2)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if r := call(t, loop, "abuse", `{"mode":"loop"}`); !stoppedAtLimit(r.Content) {
			t.Errorf("loop: %s", r.Content)
		}
	}()
	// A cancelled caller stops its call too.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if r, err := newEpisode(t, e, "", 3).Call(ctx, "abuse", []byte(`{"mode":"loop"}`)); err != nil || !strings.Contains(r.Content, "cancelled") {
		t.Errorf("cancelled loop: %+v %v", r, err)
	}
	deadline := time.Now().Add(time.Duration(e.Bundle.Manifest.Limits.CallTimeoutMS)*time.Millisecond + 200*time.Millisecond)
	n := 0
	for ; time.Now().Before(deadline); n++ {
		if r := call(t, busy, "list", `{}`); r.IsError {
			t.Fatalf("call %d beside the runaway: %s", n, r.Content)
		}
	}
	wg.Wait()
	if r := call(t, loop, "get", `{"key":"a"}`); r.IsError {
		t.Fatalf("after the runaway: %s", r.Content)
	}
}

// A second Env finds the first one's compiled code in the cache directory.
func TestCompileCache(t *testing.T) { eachEngine(t, testCompileCache) }

func testCompileCache(t *testing.T, engine string) {
	dir := t.TempDir()
	load := func(name string) {
		t.Helper()
		e, err := LoadBundle(context.Background(), testBundle(t, name, false), Options{Engine: engine, CompileCacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		ep, err := e.NewEpisode("", 1)
		if err != nil {
			t.Fatal(err)
		}
		defer ep.Close()
		if r := call(t, ep, "get", `{"key":"a"}`); name == "mini" && r.IsError {
			t.Fatalf("%s: %s", name, r.Content)
		}
	}
	load("mini")
	first := cacheFiles(t, dir)
	if len(first) == 0 {
		t.Fatal("the first load cached nothing")
	}
	// The same module again is a hit: nothing written, nothing rewritten.
	load("mini")
	if again := cacheFiles(t, dir); !sameFiles(first, again) {
		t.Fatalf("a second load of the same module changed the cache:\n%v\n%v", first, again)
	}
	// Another module is a miss: its code is added beside the first.
	load("edge")
	if more := cacheFiles(t, dir); len(more) <= len(first) {
		t.Fatalf("another module added nothing to the cache: %d files, then %d", len(first), len(more))
	}
}

// cacheFiles lists the files under dir with their size and modification time.
func cacheFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%d@%d", info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
