package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
)

// wasmenv arena plot draws the arena demonstration's results.json
// (rl/learner/wasmlearn/arena_demo.py); results it cannot draw are an
// error that names the problem, and no file is written.
func TestArenaPlot(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	arm := func(a, b, c float64) string {
		return `{"rounds": [{"round": 1, "success": ` + ftoa(a) + `, "first_tool": 0.5}, {"round": 2, "success": ` + ftoa(b) +
			`, "first_tool": 0.6}, {"round": 3, "success": ` + ftoa(c) + `, "first_tool": 0.7}], "grpo": []}`
	}
	good := write("good.json", `{"settings": {}, "seeds": [
		{"seed": 0, "arms": {"targeted": `+arm(0.1, 0.2, 0.3)+`, "control": `+arm(0.1, 0.15, 0.2)+`}},
		{"seed": 1, "arms": {"targeted": `+arm(0.0, 0.05, 0.1)+`, "control": `+arm(0.05, 0.05, 0.05)+`},
		 "sft_baseline": [{"round": 1, "success": 0.05, "first_tool": 0.5}, {"round": 2, "success": 0.04, "first_tool": 0.5}]}]}`)
	out := filepath.Join(dir, "p.png")
	if _, stderr, code := run(t, "", "arena", "plot", good, "-o", out); code != 0 {
		t.Fatalf("plot: %s", stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() < 800 {
		t.Fatalf("not a plot: %v %v", err, img)
	}
	for _, c := range []struct{ name, body, want string }{
		{"empty.json", `{"seeds": []}`, "no seeds"},
		{"onearm.json", `{"seeds": [{"seed": 3, "arms": {"targeted": ` + arm(0, 0, 0) + `}}]}`, "seed 3 has no control arm"},
		{"broken.json", `{"seeds": [`, "broken.json"},
		{"norounds.json", `{"seeds": [{"seed": 0, "arms": {"targeted": {"rounds": []}, "control": {"rounds": []}}}]}`, "no rounds"},
	} {
		dst := filepath.Join(dir, c.name+".png")
		if _, stderr, code := run(t, "", "arena", "plot", write(c.name, c.body), "-o", dst); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: %d %s", c.name, code, stderr)
		}
		if _, err := os.Stat(dst); err == nil {
			t.Errorf("%s: a refused plot still wrote %s", c.name, dst)
		}
	}
}

// --max-chain and --write-share reach the arena's synthesis: with one call
// and no writes, every fresh task is a one-call read; out of range is refused.
func TestArenaSynthFlags(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store.wasm")
	if _, stderr, code := run(t, "", "build", "../../envs/store", "-o", store); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	out := filepath.Join(dir, "run")
	if _, stderr, code := run(t, "", "arena", "--arena", "shop="+store, "--policy", "random", "--rounds", "1",
		"--eval-tasks", "6", "--group", "1", "--targeted", "2", "--max-turns", "2", "--no-complexify",
		"--max-chain", "1", "--write-share", "0", "--out", out); code != 0 {
		t.Fatalf("arena: %s", stderr)
	}
	b, err := envpkg.Read(filepath.Join(out, "round-1", "eval", "shop.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Tasks) == 0 {
		t.Fatal("no evaluation tasks")
	}
	for _, task := range b.Tasks {
		if len(task.Calls) > 1 || strings.Contains(task.ID, "-update-") || strings.Contains(task.ID, "-create-") ||
			strings.Contains(task.ID, "-delete-") {
			t.Errorf("task %s (%d calls) is not a one-call read", task.ID, len(task.Calls))
		}
	}
	for _, args := range [][]string{{"--max-chain", "-1"}, {"--write-share", "1.5"}, {"--write-share", "-0.5"}} {
		a := append([]string{"arena", "--arena", "shop=" + store, "--out", filepath.Join(dir, "x")}, args...)
		if _, stderr, code := run(t, "", a...); code == 0 || !strings.Contains(stderr, "out of range") {
			t.Errorf("%v: %d %s", args, code, stderr)
		}
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
