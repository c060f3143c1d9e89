package fleet_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/synth/llm"
)

const replayDir = "../synth/llm/testdata/replay"

// llmConfig is the run synth/llm's replay tests make: two scenarios from
// two seed domains, against recorded answers on a real HTTP server.
func llmConfig(url, out string) llm.Config {
	return llm.Config{Client: &llm.Client{BaseURL: url + "/v1", Model: "Qwen/Qwen2.5-Coder-32B-Instruct", APIKey: llmreplay.Key},
		OutDir: out, Seeds: []string{"public libraries", "healthcare clinics"}, NumScenarios: 3, TasksPerScenario: 2, ProbeRounds: 1, Jobs: 2}
}

// withoutWork drops the scratch builds (.work) a local run leaves.
func withoutWork(files map[string]string) map[string]string {
	for p := range files {
		if strings.HasPrefix(p, ".work/") {
			delete(files, p)
		}
	}
	return files
}

// relative names the output directory OUTDIR in the files (the reports
// name the paths they wrote).
func relative(files map[string]string, dir string) map[string]string {
	for p, b := range files {
		files[p] = strings.ReplaceAll(b, dir, "OUTDIR")
	}
	return files
}

// `synth llm` on `wasmenv worker` processes, one scenario per job, the
// first worker SIGKILLed while it takes a scenario through the stages:
// the job is redelivered and the output directory (sources, bundles,
// reports, stage artifacts, the batch report) is the local run's, file for
// file.
func TestSynthLLMOnFleetIsTheLocalRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	ref := t.TempDir()
	if _, err := llm.Run(context.Background(), llmConfig(llmreplay.New(t, replayDir).URL, ref)); err != nil {
		t.Fatal(err)
	}
	want := relative(withoutWork(tree(t, ref)), ref)
	if want["library-lending.wasm"] == "" || want["clinic-appointments.wasm"] == "" {
		t.Fatalf("the local run kept %v", want)
	}

	const keyEnv = "WASMENV_FLEET_TEST_LLM_KEY"
	t.Setenv(keyEnv, llmreplay.Key) // the workers' environment: the key never travels in a job
	srv := llmreplay.New(t, replayDir)
	out := t.TempDir()
	cfg := llmConfig(srv.URL, out)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	scenarios, rep, err := llm.Plan(ctx, cfg) // the driver's part: the scenarios stage
	if err != nil {
		t.Fatal(err)
	}
	refs, specs, err := fleet.PlanSynthLLM(cfg, scenarios)
	if err != nil {
		t.Fatal(err)
	}
	planned := srv.Stats().Answered

	url := startServer(t)
	reach := []string{"--allow-endpoint", srv.URL + "/v1", "--api-key-env", keyEnv}
	victim := startWorkerProcess(t, url, fastOpts, reach...)
	output := fleet.CreateSynthLLMOutput(out, refs)
	done := make(chan error, 1)
	go func() {
		done <- (&fleet.Driver{NC: connect(t, url), Log: t.Logf, Options: fastOpts}).RunSynthLLM(ctx, specs, refs, output)
	}()
	js, _ := jetstream.New(connect(t, url))
	for { // the victim holds a scenario and has asked the model about it
		c, err := js.Consumer(ctx, fleet.StreamJobs, fleet.ConsumerWorkers)
		if err == nil {
			if info, err := c.Info(ctx); err == nil && info.NumAckPending > 0 && srv.Stats().Answered > planned+1 {
				break
			}
		}
		select {
		case err := <-done:
			t.Fatalf("the run ended before the victim was mid-scenario: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	victim.cmd.Process.Signal(syscall.SIGKILL)
	victim.cmd.Wait()
	w1, w2 := startWorkerProcess(t, url, fastOpts, reach...), startWorkerProcess(t, url, fastOpts, reach...)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := rep.Finish(out, output.Reports); err != nil {
		t.Fatal(err)
	}
	if logs := w1.log.String() + w2.log.String(); !strings.Contains(logs, ", delivery 2)") {
		t.Fatalf("no job was redelivered after the kill:\n%s", logs)
	}
	sameTree(t, "on the fleet, a worker killed", relative(tree(t, out), out), want)
}

// A scenario whose every delivery fails (here the workers have no key for
// the endpoint, which refuses them) goes to the dead letters after
// MaxDeliver deliveries, and the run fails with the endpoint's reason.
func TestSynthLLMUnitThatKeepsFailingGoesToDeadLetter(t *testing.T) {
	srv := llmreplay.New(t, replayDir)
	cfg := llmConfig(srv.URL, t.TempDir())
	refs, specs, err := fleet.PlanSynthLLM(cfg, []llm.Scenario{{Name: "library-lending", Title: "Library lending", Description: "Loans of a public library."}})
	if err != nil {
		t.Fatal(err)
	}
	url := startServer(t)
	startWorkersReaching(t, url, 2, fastOpts, fleet.Endpoints{Allow: []string{srv.URL + "/v1"}, KeyEnv: "WASMENV_FLEET_TEST_NO_SUCH_KEY"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := fleet.CreateSynthLLMOutput(cfg.OutDir, refs)
	err = (&fleet.Driver{NC: connect(t, url), Options: fastOpts}).RunSynthLLM(ctx, specs, refs, out)
	if !errors.Is(err, &fleet.Error{Code: fleet.CodeDeadLetter}) || !strings.Contains(err.Error(), "after 3 deliveries") ||
		!strings.Contains(err.Error(), "unauthorized") {
		t.Fatalf("got %v, want a dead letter after 3 deliveries with the endpoint's answer", err)
	}
	if left, _ := os.ReadDir(cfg.OutDir); len(left) != 0 {
		t.Errorf("a failed scenario wrote %v", left)
	}
	if srv.Stats().Answered != 0 {
		t.Errorf("the endpoint answered %d requests", srv.Stats().Answered)
	}
}

// A job names a scenario that is not a plain name, or an archive holds
// what is not the scenario's own: refused, nothing written.
func TestSynthLLMRefusesForeignEntries(t *testing.T) {
	cfg := llmConfig("http://127.0.0.1:1", t.TempDir())
	for _, name := range []string{"../x", "reports", "", "A"} {
		if _, _, err := fleet.PlanSynthLLM(cfg, []llm.Scenario{{Name: name, Title: "t"}}); !errors.Is(err, &fleet.Error{Code: fleet.CodeBadInput}) {
			t.Errorf("scenario %q: %v, want bad_input", name, err)
		}
	}
	refs := []fleet.GroupRef{{Index: 0, Env: "shop"}}
	for what, files := range map[string]map[string]string{
		"another scenario's report": {"out/reports/other.json": `{"scenario":{"name":"other"}}`},
		"a stray file":              {"out/reports/shop.json": `{"scenario":{"name":"shop"}}`, "out/run.sh": "x"},
		"kept without a bundle":     {"out/reports/shop.json": `{"scenario":{"name":"shop"},"kept":true}`, "out/shop/env.yaml": "name: shop"},
		"no report":                 {"out/shop.wasm": "x"},
		"a cache path":              {"out/reports/shop.json": `{"scenario":{"name":"shop"}}`, "out/.synth-cache/../../x.json": "{}"},
	} {
		dir := t.TempDir()
		err := fleet.CreateSynthLLMOutput(dir, refs).WriteGroup(tarOf(t, files))
		if !errors.Is(err, &fleet.Error{Code: fleet.CodeLost}) {
			t.Errorf("%s: %v, want result_lost", what, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("%s: left %v", what, left)
		}
	}
	// The scenario's own entries are written where a local run writes them.
	dir := t.TempDir()
	err := fleet.CreateSynthLLMOutput(dir, refs).WriteGroup(tarOf(t, map[string]string{
		"out/reports/shop.json": `{"scenario":{"name":"shop"},"kept":true,"dir":"shop","bundle":"shop.wasm"}`,
		"out/shop/env.yaml":     "name: shop", "out/shop.wasm": "wasm", "out/.synth-cache/ab/0123456789abcdef.json": `{"scenario":"shop"}`}))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "reports", "shop.json"))
	if !strings.Contains(string(b), `"dir": "`+filepath.Join(dir, "shop")+`"`) {
		t.Errorf("report: %s", b)
	}
	for _, p := range []string{"shop/env.yaml", "shop.wasm", ".synth-cache/ab/0123456789abcdef.json"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
}

// tarOf packs files (path: content) with their directories, in order.
func tarOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var names []string
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, p := range names {
		for d := path.Dir(p); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var ds []string
	for d := range dirs {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	for _, d := range ds {
		tw.WriteHeader(&tar.Header{Name: d + "/", Typeflag: tar.TypeDir, Mode: 0o755})
	}
	for _, p := range names {
		tw.WriteHeader(&tar.Header{Name: p, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(files[p]))})
		tw.Write([]byte(files[p]))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Issue 37, finding 4: a scenario's archive may carry stage artifacts of
// its own scenario only, and never replaces an artifact OUTDIR has with
// other bytes (a later local run resumes from them without asking the
// model). Refused, nothing of the scenario written, the old artifact kept.
func TestSynthLLMArtifactsOnlyTheScenariosOwn(t *testing.T) {
	refs := []fleet.GroupRef{{Index: 0, Env: "shop"}}
	report := `{"scenario":{"name":"shop"}}`
	const entry = ".synth-cache/ab/0123456789abcdef.json"
	for what, c := range map[string]struct{ have, got string }{
		"another scenario's artifact": {"", `{"scenario":"library","content":"INJECTED"}`},
		"an artifact naming none":     {"", `{"content":"INJECTED"}`},
		"an artifact replaced":        {`{"scenario":"shop","content":"honest"}`, `{"scenario":"shop","content":"INJECTED"}`},
	} {
		dir := t.TempDir()
		if c.have != "" {
			os.MkdirAll(filepath.Join(dir, ".synth-cache", "ab"), 0o755)
			os.WriteFile(filepath.Join(dir, entry), []byte(c.have), 0o644)
		}
		err := fleet.CreateSynthLLMOutput(dir, refs).WriteGroup(tarOf(t, map[string]string{"out/reports/shop.json": report, "out/" + entry: c.got}))
		if !errors.Is(err, &fleet.Error{Code: fleet.CodeLost}) {
			t.Errorf("%s: %v, want result_lost", what, err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, entry))
		if string(b) != c.have {
			t.Errorf("%s: the artifact is now %q", what, b)
		}
		if _, err := os.Stat(filepath.Join(dir, "reports")); err == nil {
			t.Errorf("%s: the scenario's report was written", what)
		}
	}
	// The same bytes again (a scenario resumed): taken.
	dir := t.TempDir()
	own := `{"scenario":"shop","content":"honest"}`
	os.MkdirAll(filepath.Join(dir, ".synth-cache", "ab"), 0o755)
	os.WriteFile(filepath.Join(dir, entry), []byte(own), 0o644)
	if err := fleet.CreateSynthLLMOutput(dir, refs).WriteGroup(tarOf(t, map[string]string{"out/reports/shop.json": report, "out/" + entry: own})); err != nil {
		t.Fatal(err)
	}
}
