package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// `wasmenv fleet-bench` starts its own NATS server and worker processes,
// measures every point it was asked for and writes the JSON and the plots.
func TestFleetBench(t *testing.T) {
	bundle := buildMini(t)
	dir := t.TempDir()
	js, plots := filepath.Join(dir, "fleet.json"), filepath.Join(dir, "img")
	stdout, stderr, code := run(t, "", "fleet-bench", bundle, "--no-such-flag", "-q")
	if code == 0 {
		t.Fatalf("an unknown flag was accepted: %s", stdout)
	}
	if _, stderr, code = run(t, "", "fleet-bench", bundle, "--workers", "0", "-q"); code == 0 || stderr == "" {
		t.Fatalf("--workers 0: %d", code)
	}
	stdout, stderr, code = run(t, "", "fleet-bench", bundle, "--workers", "2", "--runs", "1", "--group", "2", "--max-turns", "3", "-q", "--json", js, "--plots", plots)
	if code != 0 {
		t.Fatalf("fleet-bench: %d %s", code, stderr)
	}
	var rep struct {
		Points []struct {
			Where          string
			Workers        int
			Rollouts       int
			RolloutsPerSec float64 `json:"rollouts_per_second"`
		}
		Overhead struct {
			Jobs        int
			FleetMicros float64 `json:"fleet_us_per_job"`
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	workers := map[int]bool{}
	for _, p := range rep.Points {
		if p.Rollouts == 0 || p.RolloutsPerSec <= 0 {
			t.Fatalf("point %+v measured nothing", p)
		}
		workers[p.Workers] = true
	}
	if len(rep.Points) != 3 || !workers[0] || !workers[2] || rep.Overhead.Jobs == 0 || rep.Overhead.FleetMicros <= 0 {
		t.Fatalf("report %+v\n%s", rep, stdout)
	}
	for _, png := range []string{"fleet-rollouts.png", "fleet-steps.png"} {
		if fi, err := os.Stat(filepath.Join(plots, png)); err != nil || fi.Size() < 1000 {
			t.Fatalf("%s: %v", png, err)
		}
	}
}
