package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replay takes arguments as OpenAI's tool_calls give them, a JSON string
// holding the object, as /call does (issue 14, point 9).
func TestReplayTakesArgumentsAsAJSONString(t *testing.T) {
	bundle := buildMini(t)
	input := `{"id":"s","task":"put-d","calls":[{"name":"put","arguments":"{\"key\":\"d\",\"value\":\"date\",\"n\":4}"}]}` + "\n"
	stdout, stderr, code := run(t, input, "replay", bundle, "--input", "-")
	if code != 0 || !strings.Contains(stdout, `"outputs":["ok"]`) || !strings.Contains(stdout, `"reward":1`) {
		t.Fatalf("replay: %d %s %s", code, stdout, stderr)
	}
}

// call reads its arguments from a file (@FILE) or standard input (-).
func TestCallReadsArgumentsFromAFileOrStdin(t *testing.T) {
	bundle := buildMini(t)
	big := `{"key": "a"` + strings.Repeat(" ", 300_000) + `}` // past a shell's argument limit
	file := filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(file, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stdin string
		args  []string
	}{{"", []string{"call", bundle, "get", "@" + file}}, {big, []string{"call", bundle, "get", "-"}}} {
		stdout, stderr, code := run(t, c.stdin, c.args...)
		if code != 0 || !strings.Contains(stdout, "apple") {
			t.Errorf("%v: %d %s %s", c.args[3], code, stdout, stderr)
		}
	}
	if _, stderr, code := run(t, "", "call", bundle, "get", "@/nonexistent.json"); code == 0 || !strings.Contains(stderr, "nonexistent.json") {
		t.Errorf("missing file: %d %s", code, stderr)
	}
}
