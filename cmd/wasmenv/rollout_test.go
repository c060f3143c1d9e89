package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
)

// wasmenv rollout on two bundles at once: the oracle solves everything and
// writes one JSONL line per rollout; random scores lower; bad flags are
// clear errors that leave no file behind.
func TestRollout(t *testing.T) {
	dir := t.TempDir()
	store, mini := filepath.Join(dir, "store.wasm"), buildMini(t)
	if _, stderr, code := run(t, "", "build", "--example", "store", "-o", store); code != 0 {
		t.Fatal(stderr)
	}
	out := filepath.Join(dir, "oracle.jsonl")
	_, stderr, code := run(t, "", "rollout", store, mini, "--policy", "oracle", "--group", "2", "-o", out,
		"--summary-json", filepath.Join(dir, "sum.json"))
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"success 100.0%", "env steps", "ms/turn", "errors: format 0", "store/cancel-pending-order-mistake",
		"worst 10 of 19 tasks", "\nstore  "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
	// The summary fits a screen: short lines, ten task rows at most.
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) > 24 {
		t.Errorf("summary of %d lines", len(lines))
	}
	for _, l := range strings.Split(stderr, "\n") {
		if len([]rune(l)) > 100 {
			t.Errorf("summary line of %d characters: %s", len([]rune(l)), l)
		}
	}
	envs := map[string]int{}
	if err := rl.ReadRolloutFile(out, func(r *rl.Rollout) error {
		envs[r.Env]++
		if r.Reward != 1 {
			t.Errorf("oracle reward %g on %s", r.Reward, r.Env)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if envs["store"] == 0 || envs["mini"] == 0 {
		t.Errorf("rollouts per env: %v", envs)
	}
	var sum struct {
		SuccessRate float64 `json:"mean_reward"`
		Rollouts    int     `json:"rollouts"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "sum.json"))
	if json.Unmarshal(b, &sum) != nil || sum.Rollouts != envs["store"]+envs["mini"] {
		t.Errorf("summary json: %s", b)
	}

	_, stderr, code = run(t, "", "rollout", mini, "--policy", "oracle", "--group", "1", "-o", "-", "--summary-tasks")
	if code != 0 || !strings.Contains(stderr, "every task (3)") || !strings.Contains(stderr, "mini/put-d ") {
		t.Errorf("--summary-tasks: %d %s", code, stderr)
	}

	_, stderr, code = run(t, "", "rollout", store, "--policy", "random", "--group", "3", "--tasks", "cancel-*",
		"--reward", "fraction", "--std-normalize", "-o", filepath.Join(dir, "random.parquet"), "-q")
	if code != 0 || !strings.Contains(stderr, "mean reward 0.") || strings.Contains(stderr, "mean reward 1.000") {
		t.Fatalf("random: %d %s", code, stderr)
	}

	for _, args := range [][]string{
		{"--policy", "bogus"}, {"--reward", "nope"}, {"--tasks", "no-such-task"}, {"--policy", "openai"},
		{"--tool-format", "xml"}, {"--ef-alpha", "3", "--reward", "envfactory"}, {"--group", "0"},
		{"--max-message-bytes", "0"}, {"--max-calls-per-turn", "-1"}, {"-o", "x.txt"},
	} {
		bad := filepath.Join(dir, "bad.jsonl")
		_, stderr, code := run(t, "", append([]string{"rollout", store, "-o", bad}, args...)...)
		if code == 0 || !strings.HasPrefix(stderr, "wasmenv: ") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("%v left %s behind", args, bad)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// --policy openai with --user openai, both against one replay server on
// 127.0.0.1 (told apart by model), drive a conversational run from flags.
func TestRolloutOpenAIUser(t *testing.T) {
	load := func(name string) []json.RawMessage {
		b, err := os.ReadFile(filepath.Join("..", "..", "rl", "openai", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		var out []json.RawMessage
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	agent, user := load("convo_agent.json"), load("convo_user.json")
	var mu sync.Mutex
	models := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || r.Header.Get("Authorization") != "Bearer sk-cli" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		n := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		mu.Lock()
		models[req.Model]++
		mu.Unlock()
		script := agent
		if req.Model == "sim-user" {
			script = user
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(script[min(n, len(script)-1)])
	}))
	defer srv.Close()
	dir := t.TempDir()
	store := filepath.Join(dir, "store.wasm")
	if _, stderr, code := run(t, "", "build", "--example", "store", "-o", store); code != 0 {
		t.Fatal(stderr)
	}
	out := filepath.Join(dir, "convo.jsonl")
	cmd := exec.Command(bin, "rollout", store, "--policy", "openai", "--model", "agent", "--user", "openai",
		"--user-model", "sim-user", "--tasks", "cancel-pending-order-mistake", "--group", "2", "-o", out, "-q")
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=sk-cli")
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "success 100.0%") || !strings.Contains(string(b), "user_stop=2") {
		t.Fatalf("%v\n%s", err, b)
	}
	if models["agent"] != 12 || models["sim-user"] != 8 {
		t.Errorf("requests per model: %v", models)
	}
}
