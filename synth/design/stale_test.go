package design_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// skipStaleRecording skips a replayed test whose recording predates the
// design prompt that asks for "figures" and states the checker's limits
// (issue 34): the replay answers a request by its exact body, so a
// recording of the earlier prompt holds no answer to the present one. It
// is re-recorded through the relay with a real model (docs/SYNTHESIS.md);
// once a recorded answer names figures the test runs in full again. The
// skip says which recording to redo: it never passes a test silently.
func skipStaleRecording(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recording in %s", dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `\"figures\"`) {
			return
		}
	}
	t.Skipf("STALE RECORDING %s: recorded before the design prompt asked for figures (issue 34); re-record it through the relay", dir)
}
