package main

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// One machine stays one command each: `wasmenv cluster`, `wasmenv worker`
// and `wasmenv rollout --nats` write the file of a local run written in
// plan order, and so does the concatenation of `--shard i/3` runs; the
// Parquet file too.
func TestRolloutOnFleetAndShards(t *testing.T) {
	bundle := buildMini(t)
	dir := t.TempDir()
	// The oracle: mini's 500 ms call timeout makes a random policy's slow
	// calls time out or not with the machine's load, and the files would differ
	// for that reason alone.
	args := []string{"rollout", bundle, "--policy", "oracle", "--group", "3", "--seed", "4", "-q"}
	local := filepath.Join(dir, "local.jsonl")
	if _, stderr, code := run(t, "", append(args, "--concurrency", "1", "-o", local)...); code != 0 {
		t.Fatalf("local: %s", stderr)
	}
	want, _ := os.ReadFile(local)

	// Shards joined with cat: each shard file carries the toolset records
	// it needs, so the whole-line form (--inline-tools) is the one whose
	// concatenation is the local file byte for byte.
	inline := filepath.Join(dir, "local-inline.jsonl")
	if _, stderr, code := run(t, "", append(args, "--concurrency", "1", "--inline-tools", "-o", inline)...); code != 0 {
		t.Fatalf("local inline: %s", stderr)
	}
	wantInline, _ := os.ReadFile(inline)
	var shards []byte
	for i := range 3 {
		out := filepath.Join(dir, "shard"+strconv.Itoa(i)+".jsonl")
		if _, stderr, code := run(t, "", append(args, "--shard", strconv.Itoa(i)+"/3", "--inline-tools", "-o", out)...); code != 0 {
			t.Fatalf("shard %d: %s", i, stderr)
		}
		b, _ := os.ReadFile(out)
		shards = append(shards, b...)
	}
	if !bytes.Equal(shards, wantInline) {
		t.Fatalf("3 shards: %d bytes, the local run %d; they differ", len(shards), len(wantInline))
	}
	if _, stderr, code := run(t, "", append(args, "--shard", "3/3", "-o", filepath.Join(dir, "x.jsonl"))...); code == 0 || !strings.Contains(stderr, "0 <= i < n") {
		t.Fatalf("--shard 3/3: code %d, %s", code, stderr)
	}

	url := startCluster(t)
	startWorkerProcs(t, url, 2)
	fleetOut := filepath.Join(dir, "fleet.jsonl")
	if _, stderr, code := run(t, "", append(args, "--nats", url, "-o", fleetOut)...); code != 0 || !strings.Contains(stderr, "rollouts in") {
		t.Fatalf("--nats: %d %s", code, stderr)
	}
	got, _ := os.ReadFile(fleetOut)
	if !bytes.Equal(got, want) {
		t.Fatalf("--nats: %d bytes, the local run %d; they differ", len(got), len(want))
	}

	// Parquet: the lines decoded back into rollouts give the same file.
	localPq, fleetPq := filepath.Join(dir, "local.parquet"), filepath.Join(dir, "fleet.parquet")
	if _, stderr, code := run(t, "", append(args, "--concurrency", "1", "-o", localPq)...); code != 0 {
		t.Fatalf("local parquet: %s", stderr)
	}
	if _, stderr, code := run(t, "", append(args, "--nats", url, "-o", fleetPq)...); code != 0 {
		t.Fatalf("--nats parquet: %s", stderr)
	}
	a, _ := os.ReadFile(localPq)
	b, _ := os.ReadFile(fleetPq)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("--nats parquet: %d bytes, the local run %d; they differ", len(b), len(a))
	}
}

// startWorkerProcs starts n `wasmenv worker` processes on url, stopped
// (SIGINT) when the test ends; args are more flags.
func startWorkerProcs(t *testing.T, url string, n int, args ...string) {
	t.Helper()
	for range n {
		w := exec.Command(bin, append([]string{"worker", "--nats", url, "--cache", t.TempDir(), "-q"}, args...)...)
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Process.Signal(os.Interrupt); w.Wait() })
	}
}

// startCluster runs `wasmenv cluster` on a free port until the test ends;
// args are more flags.
func startCluster(t *testing.T, args ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, append([]string{"cluster", "--port", strconv.Itoa(port), "--store", t.TempDir()}, args...)...)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		if !strings.Contains(line, "JetStream on nats://") && !strings.Contains(line, "JetStream on tls://") {
			t.Fatalf("cluster said %q", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("wasmenv cluster did not start")
	}
	return "nats://127.0.0.1:" + strconv.Itoa(port)
}
