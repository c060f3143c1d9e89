package fleet_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/runtime"
)

func loadAll(t testing.TB, files ...*fleet.BundleFile) map[string]*runtime.Env {
	envs := map[string]*runtime.Env{}
	for _, f := range files {
		e, err := runtime.LoadBundle(context.Background(), f.Bundle, runtime.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		envs[f.Bundle.Hash] = e
	}
	return envs
}

// Every shard split, run with groups in parallel, concatenates to the
// bytes of the single-process engine's run, for both baseline policies and
// with the options that change how many lines a group writes.
func TestShardsConcatenateToTheLocalRun(t *testing.T) {
	store, calendar := bundle(t, "store"), bundle(t, "calendar")
	envs := loadAll(t, store, calendar)
	specs := map[string]*fleet.Spec{
		"random":         {Group: 4, Seed: 11, MaxTurns: 6, Policy: fleet.PolicySpec{Kind: "random"}},
		"oracle":         {Group: 2, Seed: 5, MaxTurns: 40, Policy: fleet.PolicySpec{Kind: "oracle"}},
		"random-windows": {Group: 3, Seed: 2, MaxTurns: 5, Tasks: "cancel-*,return-*", HistoryWindow: 2, Reward: "awm", Policy: fleet.PolicySpec{Kind: "random"}},
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			want := reference(t, spec, store, calendar)
			if len(want) == 0 {
				t.Fatal("the reference run wrote nothing")
			}
			refs := plan(t, spec, store, calendar)
			for _, n := range []int{1, 3, 7} {
				var all bytes.Buffer
				for i := range n {
					out := &memOutput{}
					if _, err := fleet.RunLocal(context.Background(), envs, spec, fleet.Shard{I: i, N: n}.Of(refs), 4, out, nil); err != nil {
						t.Fatal(err)
					}
					all.Write(out.file(t))
				}
				// Each shard file carries the toolset records it needs, so
				// shards joined with cat repeat some: the rollouts read back
				// are the local run's, byte for byte in their full view.
				if got, w := fullView(t, all.Bytes()), fullView(t, want); !bytes.Equal(got, w) {
					t.Fatalf("%d shards: %d bytes read back, the local run %d bytes; they differ", n, len(got), len(w))
				}
				if n == 1 && !bytes.Equal(all.Bytes(), want) {
					t.Fatalf("one shard: %d bytes, the local run %d bytes; they differ", all.Len(), len(want))
				}
			}
		})
	}
}

func TestShardSplitsEveryGroupOnce(t *testing.T) {
	refs := make([]fleet.GroupRef, 10)
	for i := range refs {
		refs[i].Index = i
	}
	for n := 1; n <= 12; n++ {
		next := 0
		for i := range n {
			part := fleet.Shard{I: i, N: n}.Of(refs)
			if len(part) < len(refs)/n || len(part) > len(refs)/n+1 {
				t.Fatalf("shard %d/%d has %d groups", i, n, len(part))
			}
			for _, r := range part {
				if r.Index != next {
					t.Fatalf("shard %d/%d: group %d, want %d", i, n, r.Index, next)
				}
				next++
			}
		}
		if next != len(refs) {
			t.Fatalf("%d shards cover %d groups", n, next)
		}
	}
}

func TestParseShardRefusesNonsense(t *testing.T) {
	for _, s := range []string{"", "1", "3/3", "-1/2", "0/0", "a/b", "1/2/3", "0/-1"} {
		if _, err := fleet.ParseShard(s); !errors.Is(err, &fleet.Error{Code: fleet.CodeBadInput}) {
			t.Errorf("ParseShard(%q) = %v, want a bad_input error", s, err)
		}
	}
	if s, err := fleet.ParseShard("2/5"); err != nil || s != (fleet.Shard{I: 2, N: 5}) {
		t.Fatalf("2/5: %v %v", s, err)
	}
}

// A worker keeps at most its limit of loaded bundles: the least recently
// used one no job holds is closed, one in use never is; a bad copy in the
// disk cache is refused, not loaded.
func TestBundleCacheKeepsAtMostItsLimit(t *testing.T) {
	store, calendar := bundle(t, "store"), bundle(t, "calendar")
	dir := t.TempDir()
	for _, b := range []*fleet.BundleFile{store, calendar} {
		if err := os.WriteFile(filepath.Join(dir, b.Bundle.Hash+".wasm"), b.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := fleet.NewBundleCache(dir, 1)
	defer c.Close()
	s, releaseStore, err := c.Acquire(store.Bundle.Hash)
	if err != nil {
		t.Fatal(err)
	}
	_, releaseCal, err := c.Acquire(calendar.Bundle.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Loaded(); n != 2 {
		t.Fatalf("%d loaded while both are in use, want 2", n)
	}
	ep, err := s.NewEpisode(store.Bundle.Tasks[0].ID, 1) // the one in use still works
	if err != nil {
		t.Fatal(err)
	}
	ep.Close()
	releaseStore()
	if n := c.Loaded(); n != 1 {
		t.Fatalf("%d loaded after one was released, want 1 (the limit)", n)
	}
	releaseCal()
	releaseCal() // twice is once
	if _, release, err := c.Acquire(store.Bundle.Hash); err != nil || c.Loaded() != 1 {
		t.Fatalf("reload: %v, %d loaded", err, c.Loaded())
	} else {
		release()
	}

	// A tampered copy in the disk cache is not loaded.
	bad := bytes.Clone(store.Data)
	bad[len(bad)/2] ^= 0xff
	os.WriteFile(filepath.Join(dir, store.Bundle.Hash+".wasm"), bad, 0o644)
	c2 := fleet.NewBundleCache(dir, 4)
	defer c2.Close()
	if _, _, err := c2.Acquire(store.Bundle.Hash); !errors.Is(err, &fleet.Error{Code: fleet.CodeBadBundle}) {
		t.Fatalf("tampered cache copy: %v, want bad_bundle", err)
	}
}
