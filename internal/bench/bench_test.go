package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/internal/testcache"
)

func TestMain(m *testing.M) { testcache.Main(m) }

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i))
	}
	l := summarize(ds)
	if l.P50 != 51 || l.P99 != 100 || l.Max != 100 || l.Mean != 50 || l.N != 100 {
		t.Fatalf("%+v", l)
	}
	if e := summarize(nil); e.N != 0 || e.P50 != 0 {
		t.Fatal("empty input")
	}
}

// A short run produces every figure the issue asks for, for wasmenv and the
// baselines, and the plots. (Behaviour only: no figure is compared with a
// target here.)
func TestRunReportsEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a bundle and runs every measurement")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "benchenv.wasm")
	if _, err := compiler.BuildFile(context.Background(), "../../bench/testdata/benchenv", path, compiler.Options{}); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), path, Config{Episodes: 10, Duration: 30 * time.Millisecond, Sizes: []int64{1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rep.WriteTable(&buf)
	if buf.Len() == 0 {
		t.Fatal("empty table")
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(js, &m)
	for _, k := range []string{"reset_ns", "step_read_ns", "step_write_ns", "throughput_steps_per_s",
		"rss_bytes_per_idle_episode", "rss_bytes_per_active_episode", "cold_start_ms", "bundle_bytes", "baselines"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if rep.ResetNs.P50 <= 0 || rep.StepReadNs.P50 <= 0 || rep.StepWriteNs.P50 <= 0 || rep.Throughput["10"] <= 0 {
		t.Errorf("wasmenv figures missing: %+v", rep.Figures)
	}
	// The episode end after 1, 10 and 100 writes (issue 20), diff + hash
	// and the task's score, at each size.
	for _, m := range []string{"diffhash/1", "diffhash/10", "diffhash/100", "score/1", "score/10", "score/100"} {
		if l := rep.EndBySize["1048576"][m]; l.P50 <= 0 || l.N == 0 {
			t.Errorf("episode end %s missing: %+v", m, rep.EndBySize)
		}
	}
	if !bytes.Contains(buf.Bytes(), []byte("diff + hash p50 after 100 writes")) {
		t.Errorf("the table lacks the episode-end rows:\n%s", buf.Bytes())
	}
	for _, name := range []string{"filecopy", "serdes"} {
		if f := rep.Baselines[name]; f == nil || f.ResetNs.P50 <= 0 {
			t.Errorf("baseline %s missing: %+v", name, f)
		}
	}
	if err := Plot(rep, dir); err != nil {
		t.Fatal(err)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(pngs) < 5 {
		t.Fatalf("plots: %v", pngs)
	}
	for _, p := range pngs {
		if st, _ := os.Stat(p); st.Size() == 0 {
			t.Errorf("empty plot %s", p)
		}
	}
}

func TestVersusHostSQL(t *testing.T) {
	r := &Report{Baselines: map[string]*Figures{}}
	if r.VersusHostSQL() != nil {
		t.Fatal("ratios without a serdes baseline")
	}
	r.StepToolNs = map[string]Latency{"get_order": {P50: 3000}}
	r.StepWriteNs, r.ResetNs = Latency{P50: 4000}, Latency{P50: 2000}
	r.Throughput = map[string]float64{"1000": 100_000}
	r.Baselines["serdes"] = &Figures{StepToolNs: map[string]Latency{"get_order": {P50: 1500}},
		StepWriteNs: Latency{P50: 2000}, ResetNs: Latency{P50: 200_000}, Throughput: map[string]float64{"1000": 25_000}}
	got := map[string]float64{}
	for _, x := range r.VersusHostSQL() {
		got[x.Figure] = x.Ratio
	}
	want := map[string]float64{"point read (get_order) p50": 2, "write p50": 2, "reset p50": 0.01, "steps/s, N=1000 (higher is better)": 4}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: got %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
}
