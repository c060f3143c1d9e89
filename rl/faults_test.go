package rl_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
)

// faultsDir holds rollout files both readers must judge alike (issue 37
// finding 10): each ok-* file read, each bad-* file refused with
// ErrRolloutFile; clients/python/tests/test_rollouts.py holds the Python
// reader to the same files.
const faultsDir = "../clients/python/tests/testdata/rollout-faults"

func TestReadRolloutsSharedFaults(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(faultsDir, "*.jsonl*"))
	if err != nil || len(files) < 40 {
		t.Fatalf("%d fixture files: %v", len(files), err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		n := 0
		err := rl.ReadRolloutFile(path, func(*rl.Rollout) error { n++; return nil })
		switch {
		case strings.HasPrefix(name, "ok-"):
			if err != nil {
				t.Errorf("%s: refused: %v", name, err)
			}
		case strings.HasPrefix(name, "bad-"):
			if !errors.Is(err, rl.ErrRolloutFile) {
				t.Errorf("%s: got %v after %d rollouts, want ErrRolloutFile", name, err, n)
			}
		default:
			t.Errorf("%s: neither ok- nor bad-", name)
		}
	}
	if _, err := os.Stat(filepath.Join(faultsDir, "README.md")); err != nil {
		t.Error(err)
	}
}
