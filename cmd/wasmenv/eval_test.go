package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// `wasmenv eval` writes one line per task and a summary; in chunks of any
// size, and on a fleet of `wasmenv worker` processes, the same bytes. The
// task lines of `--shard i/n` files are the whole run's, in order.
func TestEvalLocalShardsAndFleet(t *testing.T) {
	bundle := buildMini(t)
	dir := t.TempDir()
	args := []string{"eval", bundle, "--policy", "oracle", "--samples", "3", "--seed", "4", "-q"}
	local := filepath.Join(dir, "local.jsonl")
	_, stderr, code := run(t, "", append(args, "--chunk", "1", "-o", local)...)
	if code != 0 || !strings.Contains(stderr, "success 100.0%") {
		t.Fatalf("local: %d %s", code, stderr)
	}
	want, _ := os.ReadFile(local)
	lines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	last := lines[len(lines)-1]
	if len(lines) < 3 || !strings.Contains(last, `"type":"summary"`) || !strings.Contains(last, `"success_rate":1,"k":3,"pass_at_k":1`) {
		t.Fatalf("local file:\n%s", want)
	}
	big := filepath.Join(dir, "big.jsonl")
	if _, stderr, code := run(t, "", append(args, "--chunk", "100", "-o", big)...); code != 0 {
		t.Fatalf("chunk 100: %s", stderr)
	}
	if b, _ := os.ReadFile(big); !bytes.Equal(b, want) {
		t.Fatalf("chunks of 100:\n%s\nchunks of 1:\n%s", b, want)
	}
	var shardTasks []string
	for i := range 2 {
		out := filepath.Join(dir, "shard"+strconv.Itoa(i)+".jsonl")
		if _, stderr, code := run(t, "", append(args, "--chunk", "1", "--shard", strconv.Itoa(i)+"/2", "-o", out)...); code != 0 {
			t.Fatalf("shard %d: %s", i, stderr)
		}
		b, _ := os.ReadFile(out)
		ls := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		shardTasks = append(shardTasks, ls[:len(ls)-1]...)
	}
	if strings.Join(shardTasks, "\n") != strings.Join(lines[:len(lines)-1], "\n") {
		t.Fatalf("the shards' task lines are not the run's")
	}
	for _, bad := range [][]string{{"--samples", "0"}, {"--chunk", "0"}, {"--shard", "2/2"}, {"--run-id", "x"}} {
		if _, stderr, code := run(t, "", append(append(args, bad...), "-o", filepath.Join(dir, "bad.jsonl"))...); code == 0 || stderr == "" {
			t.Fatalf("%v: code %d", bad, code)
		}
		if _, err := os.Stat(filepath.Join(dir, "bad.jsonl")); err == nil {
			t.Fatalf("%v left a file", bad)
		}
	}

	url := startCluster(t)
	startWorkerProcs(t, url, 2)
	fleetOut := filepath.Join(dir, "fleet.jsonl")
	if _, stderr, code := run(t, "", append(args, "--chunk", "2", "--nats", url, "-o", fleetOut)...); code != 0 || !strings.Contains(stderr, "success 100.0%") {
		t.Fatalf("--nats: %d %s", code, stderr)
	}
	if got, _ := os.ReadFile(fleetOut); !bytes.Equal(got, want) {
		t.Fatalf("--nats: %d bytes, the local run %d; they differ", len(got), len(want))
	}
}
