// Package learner holds the Go side of the PyTorch learner (rl/learner,
// Python package wasmlearn): a test that drives rollouts from the real
// engine through the real learner process, so the engine ↔ learner contract
// (OpenAI chat completions with tools, vLLM's token-id fields, the JSONL
// trajectory format) cannot drift unnoticed.
package learner

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/rl"
)

const python = "/usr/bin/python3"

func needTorch(t *testing.T) {
	t.Helper()
	if err := exec.Command(python, "-c", "import torch").Run(); err != nil {
		t.Skipf("skipping: %s cannot import torch (install Debian's python3-torch, as .ci/run does): %v", python, err)
	}
}

func runCmd(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// readRows reads a rollout file in its full view (rl.ReadRolloutFile).
func readRows(t *testing.T, path string) []rl.Rollout {
	t.Helper()
	var rows []rl.Rollout
	if err := rl.ReadRolloutFile(path, func(r *rl.Rollout) error {
		rows = append(rows, *r)
		return nil
	}); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// TestRolloutThroughLearner: oracle trajectories from `wasmenv rollout` →
// SFT in the learner → the learner serves the policy → `wasmenv rollout
// --policy openai` drives it → the trajectories carry the learner's token
// ids and logprobs → a GRPO update in the learner consumes them and
// recomputes exactly the logprobs it served. Once with the small GPT (the
// default) and once with the Qwen3-family decoder (--arch qwen3,
// checkpoints in the Hugging Face layout).
func TestRolloutThroughLearner(t *testing.T) {
	needTorch(t)
	if testing.Short() {
		t.Skip("skipping the learner end-to-end test in -short mode")
	}
	dir := t.TempDir()
	repo, _ := filepath.Abs("../..")
	pkg := filepath.Join(repo, "rl", "learner")
	env := []string{"WASMENV_CACHE=" + filepath.Join(dir, "cache"), "WASMLEARN_THREADS=1"}
	bin := filepath.Join(dir, "wasmenv")
	runCmd(t, repo, nil, "go", "build", "-o", bin, "./cmd/wasmenv")
	bundle := filepath.Join(dir, "store.wasm")
	runCmd(t, repo, env, bin, "build", "envs/store", "-o", bundle)

	const task = "cancel-pending-order-mistake"
	oracle := filepath.Join(dir, "oracle.jsonl")
	runCmd(t, dir, env, bin, "rollout", bundle, "--policy", "oracle", "--group", "1", "--tasks", task, "-q", "-o", oracle)
	if rs := readRows(t, oracle); len(rs) != 1 || rs[0].Reward != 1 {
		t.Fatalf("oracle rollout: %+v", rs)
	}
	for _, arch := range []string{"gpt", "qwen3"} {
		t.Run(arch, func(t *testing.T) {
			rolloutThroughLearner(t, filepath.Join(dir, arch), repo, pkg, env, bin, bundle, oracle, task, arch)
		})
	}
}

func rolloutThroughLearner(t *testing.T, dir, repo, pkg string, env []string, bin, bundle, oracle, task, arch string) {
	// A small model learns the one ground-truth trajectory by heart.
	ckpt := filepath.Join(dir, "ckpt")
	out := runCmd(t, pkg, env, python, "-m", "wasmlearn", "sft", "--data", oracle, "--init-env-dir",
		filepath.Join(repo, "envs", "store"), "--out", ckpt, "--epochs", "80", "--batch", "1", "--lr", "3e-3",
		"--max-tool-tokens", "24", "--max-system-tokens", "8", "--tools-style", "names", "--arch", arch)
	t.Logf("sft: %s", strings.TrimSpace(out))
	if arch != "gpt" {
		if _, err := os.Stat(filepath.Join(ckpt, "config.json")); err != nil {
			t.Errorf("%s checkpoint without config.json (Hugging Face layout): %v", arch, err)
		}
	}

	portFile := filepath.Join(dir, "url")
	srv := exec.Command(python, "-m", "wasmlearn", "serve", "--ckpt", ckpt, "--port", "0", "--port-file", portFile,
		"--max-tokens", "96")
	srv.Dir = pkg
	srv.Env = append(os.Environ(), env...)
	srv.Stdout, srv.Stderr = os.Stderr, os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Kill()
		srv.Wait()
	}()
	var url string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(portFile); err == nil && len(b) > 0 {
			url = string(b)
			break
		}
	}
	if url == "" {
		t.Fatal("the learner did not start serving within 2 minutes")
	}

	rolls := filepath.Join(dir, "rollouts.jsonl")
	runCmd(t, dir, env, bin, "rollout", bundle, "--policy", "openai", "--base-url", url, "--model", "wasmlearn",
		"--group", "2", "--tasks", task, "--max-turns", "6", "--temperature", "0", "-q", "-o", rolls)
	rs := readRows(t, rolls)
	if len(rs) != 2 {
		t.Fatalf("want 2 rollouts, got %d", len(rs))
	}
	for _, r := range rs {
		if r.FormatError {
			t.Errorf("format error in a rollout of the learned policy: %+v", r.Messages)
		}
		if r.Reward != 1 {
			t.Errorf("the greedy policy that learned the ground truth earned %v (finish %s): %+v", r.Reward, r.Finish, r.Messages)
		}
		if len(r.TurnTokens) == 0 {
			t.Fatalf("no turn_tokens: the engine did not record the learner's token ids")
		}
		for _, tt := range r.TurnTokens {
			if len(tt.PromptTokenIDs) == 0 || len(tt.CompletionTokenIDs) == 0 ||
				len(tt.Logprobs) != len(tt.CompletionTokenIDs) || len(tt.Tokens) != len(tt.CompletionTokenIDs) {
				t.Errorf("turn %d: prompt %d ids, completion %d ids, %d logprobs, %d tokens", tt.Message,
					len(tt.PromptTokenIDs), len(tt.CompletionTokenIDs), len(tt.Logprobs), len(tt.Tokens))
			}
		}
	}

	// The learner trains on what the engine wrote, from the token ids it served.
	out = runCmd(t, pkg, env, python, "-m", "wasmlearn", "grpo", "--ckpt", ckpt, "--data", rolls,
		"--out", filepath.Join(dir, "ckpt2"))
	var st map[string]float64
	if err := json.Unmarshal([]byte(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:]), &st); err != nil {
		t.Fatalf("grpo output %q: %v", out, err)
	}
	if st["samples_from_token_ids"] != 2 || st["samples"] < 2 {
		t.Errorf("grpo did not build its samples from the served token ids: %v", st)
	}
	if m, ok := st["logprob_mismatch"]; !ok || m > 1e-3 {
		t.Errorf("served logprobs differ from the learner's recomputation: mismatch %v (present %v)", m, ok)
	}
}
