package bench

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/compiler"
)

// wasmenv bench runs on a bundle other than benchenv, as the README shows
// it on the store: ground-truth calls replayed out of their task's state
// may answer with a tool error, which is a step like any other (issue 14,
// point 11).
func TestRunOnTheStoreBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the store bundle and runs every measurement")
	}
	path := filepath.Join(t.TempDir(), "store.wasm")
	if _, err := compiler.BuildFile(context.Background(), "../../envs/store", path, compiler.Options{}); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), path, Config{Episodes: 4, Duration: 20 * time.Millisecond, Sizes: []int64{1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Workload == "" {
		t.Errorf("report names no workload")
	}
}
