package rl_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// tee exports to several exporters at once.
type tee []rl.Exporter

func (t tee) Write(g []rl.Rollout) error {
	for _, e := range t {
		if err := e.Write(g); err != nil {
			return err
		}
	}
	return nil
}

func (t tee) Close() error {
	for _, e := range t {
		if err := e.Close(); err != nil {
			return err
		}
	}
	return nil
}

func readAll(t *testing.T, path string) []rl.Rollout {
	t.Helper()
	var out []rl.Rollout
	if err := rl.ReadRolloutFile(path, func(r *rl.Rollout) error {
		out = append(out, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// asJSON compares rollouts as a trainer sees them.
func asJSON(t *testing.T, rs []rl.Rollout) string {
	t.Helper()
	b, err := json.Marshal(rs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Issue 26: the compact file (toolset records, lines naming them) reads
// back to exactly the rollouts the engine made, as the whole-line format
// (the format before toolsets, still read) and its gzip form do; the
// compact file is a fraction of the whole one.
func TestCompactRolloutsRoundTrip(t *testing.T) {
	store, retail := rltest.Load(t, "store"), rltest.Load(t, "taubench-retail")
	dir := t.TempDir()
	paths := map[string]string{}
	var exps tee
	for _, name := range []string{"compact.jsonl", "whole.jsonl", "compact.jsonl.gz"} {
		paths[name] = filepath.Join(dir, name)
		j, err := rl.CreateJSONL(paths[name])
		if err != nil {
			t.Fatal(err)
		}
		j.Inline = name == "whole.jsonl"
		exps = append(exps, j)
	}
	var got rltest.Collect
	for _, cfg := range []rl.Config{
		{Group: 3, Tasks: "cancel-*,return-*,test-0,test-1,test-2"},
		{Group: 2, Tasks: "cancel-*,test-3", HistoryWindow: 1, Seed: 9},
	} {
		if _, err := rl.Run(context.Background(), []*runtime.Env{store, retail}, &rl.Random{}, cfg, &got); err != nil {
			t.Fatal(err)
		}
	}
	if err := exps.Write(got.All()); err != nil {
		t.Fatal(err)
	}
	if err := exps.Close(); err != nil {
		t.Fatal(err)
	}
	want := asJSON(t, got.All())
	if !strings.Contains(want, `"tools":[{`) || !strings.Contains(want, `"role":"system"`) {
		t.Fatal("the engine's rollouts carry no tools or system message")
	}
	for name, path := range paths {
		if g := asJSON(t, readAll(t, path)); g != want {
			t.Errorf("%s does not read back to the engine's rollouts", name)
		}
	}
	size := func(name string) int64 {
		st, err := os.Stat(paths[name])
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	compact, whole := size("compact.jsonl"), size("whole.jsonl")
	t.Logf("whole %d bytes, compact %d (%.1f%%), gzip %d", whole, compact, 100*float64(compact)/float64(whole), size("compact.jsonl.gz"))
	if compact*3 > whole {
		t.Errorf("compact %d bytes, whole %d", compact, whole)
	}
	// Each toolset is written once: two environments, plain and history
	// window samples share them.
	b, _ := os.ReadFile(paths["compact.jsonl"])
	if n := strings.Count(string(b), `{"record":"`+rl.RecordToolset+`"`); n != 2 {
		t.Errorf("%d toolset records", n)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	if !strings.HasPrefix(first, `{"record":"`+rl.RecordToolset+`"`) {
		t.Errorf("first line: %.80s", first)
	}
}

// A file that names a toolset it never defined, or a record of an unknown
// kind, is the file's error, with its place.
func TestReadRolloutsRefusesBrokenFiles(t *testing.T) {
	for _, text := range []string{
		`{"env":"e","task":"t","toolset":"abc","messages":[]}`,
		`{"record":"toolsets","toolset":"abc"}`,
		`{"record":"toolset"}`,
		`{"env":"e"} {"env":`,
	} {
		err := rl.ReadRollouts(strings.NewReader(text), func(*rl.Rollout) error { return nil })
		if !errors.Is(err, rl.ErrRolloutFile) || !strings.Contains(err.Error(), "record ") {
			t.Errorf("%s: %v", text, err)
		}
	}
	// Stopping early is the caller's error, returned as is.
	stop := errors.New("enough")
	err := rl.ReadRollouts(strings.NewReader(`{"env":"a"}`+"\n"+`{"env":"b"}`), func(*rl.Rollout) error { return stop })
	if err != stop {
		t.Errorf("stop: %v", err)
	}
}
