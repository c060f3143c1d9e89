package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
)

// serve-bench --server-process --socket --batch drives a `wasmenv serve`
// process over GET /v1/ws in batch frames, reports the server's CPU apart,
// leaks nothing, and --server-cpuprofile leaves the server's profile.
func TestServeBenchSocketProcess(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("--server-process reads /proc")
	}
	mini := buildMini(t)
	prof := filepath.Join(t.TempDir(), "server.prof")
	stdout, stderr, code := run(t, "", "serve-bench", mini, "--server-process", "--episodes", "8", "--calls", "2000",
		"--socket", "--conns", "2", "--batch", "--json", "--server-cpuprofile", prof)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	var res struct {
		Transport        string   `json:"transport"`
		Conns            int      `json:"conns"`
		Batch            bool     `json:"batch"`
		Frames           int64    `json:"frames"`
		Calls            int64    `json:"calls"`
		Errors           int64    `json:"errors"`
		ServerCPUPerCall float64  `json:"server_cpu_us_per_call"`
		Leaks            []string `json:"leaks"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if res.Transport != "socket" || res.Conns != 2 || !res.Batch || res.Calls != 2000 || res.Errors != 0 || len(res.Leaks) != 0 {
		t.Fatalf("%+v", res)
	}
	if res.Frames <= 0 || res.Frames > res.Calls || res.ServerCPUPerCall <= 0 {
		t.Fatalf("frames %d, server CPU per call %v µs", res.Frames, res.ServerCPUPerCall)
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Fatalf("the server's profile: %v", err)
	}
}
