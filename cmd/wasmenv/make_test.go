package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// `make test` runs every stage even when one fails and lists all the
// failed ones (issue 38: it stopped at the first, and the Python and
// learner stages never ran). The stages' commands are replaced here by
// stand-ins that fail or print, so this runs in a second.
func TestMakeTestRunsEveryStage(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skipf("needs make: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	stand := []string{"GOFMT_CHECK=exit 1", "GO_VET=true", "GO_TEST=echo go-test-ran; false", "GO_TEST_WASMTIME=true",
		"PYTHON_TEST=echo python-ran", "LEARNER_TEST=echo learner-ran; exit 3"}
	// First a dry run: a Makefile whose stages cannot be replaced would
	// run the whole suite here.
	// The run is its own: not a part of a make test that runs this test
	// (whose MAKEFLAGS would carry its variables and jobserver down).
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "MAKEFLAGS=") || strings.HasPrefix(kv, "MFLAGS=") || strings.HasPrefix(kv, "MAKELEVEL=")
	})
	makeCmd := func(args ...string) *exec.Cmd {
		c := exec.Command("make", args...)
		c.Env = env
		return c
	}
	dry, _ := makeCmd(append([]string{"-n", "--no-print-directory", "-C", root, "test"}, stand...)...).CombinedOutput()
	if strings.Contains(string(dry), "go test -count=1") || strings.Contains(string(dry), "unittest") {
		t.Fatalf("make test's stages are not replaceable: the dry run shows the real commands:\n%s", dry)
	}
	cmd := makeCmd(append([]string{"--no-print-directory", "-C", root, "test"}, stand...)...)
	out, err := cmd.CombinedOutput()
	s := string(out)
	if err == nil {
		t.Fatalf("make test passed with failing stages:\n%s", s)
	}
	for _, ran := range []string{"go-test-ran", "python-ran", "learner-ran"} {
		if !strings.Contains(s, ran) {
			t.Errorf("a stage after a failure did not run (%s missing):\n%s", ran, s)
		}
	}
	if !strings.Contains(s, "make test: FAILED stages:\n  gofmt\n  go-test\n  learner-test\n") {
		t.Errorf("the summary does not list the three failed stages:\n%s", s)
	}
	out, err = makeCmd("--no-print-directory", "-C", root, "test", "GOFMT_CHECK=true", "GO_VET=true",
		"GO_TEST=true", "GO_TEST_WASMTIME=true", "PYTHON_TEST=true", "LEARNER_TEST=true").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "make test: every stage passed") {
		t.Errorf("all stages passing: %v\n%s", err, out)
	}
}
