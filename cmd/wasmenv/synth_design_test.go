package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSynthFromDBLLMReplay: --llm-replay reproduces a recorded model
// route (synth/design/testdata/store, answered by a model through
// cmd/llmrelay) with no endpoint, and a request the recording does not
// hold fails with a clear error instead of a made-up answer.
func TestSynthFromDBLLMReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	rec := "../../synth/design/testdata/store"
	{
		out := filepath.Join(t.TempDir(), "store")
		stdout, stderr, code := run(t, "", "synth", "from-db", "../../envs/store", "-o", out, "--tasks", "40", "--seed", "1",
			"--llm", "claude (via relay)", "--llm-replay", rec)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		for _, want := range []string{"design (claude (via relay)): 2 answers (1 repair prompts); actions designed 6, kept 5, dropped 1",
			"wording: 2 prompts, 34 instructions sent, 32 rewrites kept, 2 kept the procedural wording"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		}
		if y := readText(t, filepath.Join(out, "env.yaml")); !strings.Contains(y, "cancel_order refuses otherwise") || strings.Contains(y, "The assistant acts for a shopper") {
			t.Error("env.yaml's rules should carry the designed actions' rules and not the model's prose about whom it serves")
		}
	}
	// Other inputs ask other questions: the recording does not answer.
	stdout, stderr, code := run(t, "", "synth", "from-db", "../../envs/store", "-o", filepath.Join(t.TempDir(), "s"), "--tasks", "12", "--seed", "1",
		"--llm", "claude (via relay)", "--llm-replay", rec)
	if code != 1 || !strings.Contains(stderr, "the recording holds no answer to this request") || strings.Contains(stderr, "panic") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, stderr, code := run(t, "", "synth", "from-db", "../../envs/store", "-o", filepath.Join(t.TempDir(), "s"), "--llm-replay", rec); code != 1 || !strings.Contains(stderr, "--llm-replay needs --llm") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
