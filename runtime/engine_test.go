package runtime

import (
	"context"
	"os"
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
		if r := call(t, loop, "abuse", `{"mode":"loop"}`); !strings.Contains(r.Content, "time limit") {
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
	b := testBundle(t, "mini", false)
	for i := range 2 {
		e, err := LoadBundle(context.Background(), b, Options{Engine: engine, CompileCacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		ep, err := e.NewEpisode("", 1)
		if err != nil {
			t.Fatal(err)
		}
		r := call(t, ep, "get", `{"key":"a"}`)
		ep.Close()
		e.Close()
		if r.IsError {
			t.Fatalf("load %d: %s", i, r.Content)
		}
		if ents, _ := os.ReadDir(dir); len(ents) == 0 {
			t.Fatalf("load %d: nothing cached", i)
		}
	}
}
