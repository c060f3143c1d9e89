package fleet_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/synth/llm"
)

// corpusRecording holds every exchange of the chat model that made
// synth/llm/corpus through the relay: stages, repairs, probe, checker, the
// retention gate's agent turns and examinations.
const corpusRecording = "../synth/llm/corpus/recording"

// corpusScenarios reads the first n scenarios of one of the corpus's
// scenario files.
func corpusScenarios(t *testing.T, file string, n int) []llm.Scenario {
	t.Helper()
	f, err := os.Open(filepath.Join("../synth/llm/corpus", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []llm.Scenario
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < n {
		var s llm.Scenario
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// corpusRunConfig is the command line the corpus was recorded with
// (synth/llm's corpusConfig): --tasks 5 --probe-rounds 1 --retain-k 2
// --retain-max-turns 12.
func corpusRunConfig(url, out string, assumed bool, scenarios []llm.Scenario) llm.Config {
	return llm.Config{Client: &llm.Client{BaseURL: url + "/v1", Model: "claude (via relay)", APIKey: llmreplay.Key, Backoff: time.Millisecond},
		OutDir: out, Scenarios: scenarios, TasksPerScenario: 5, ProbeRounds: 1, AuthAssumed: assumed,
		RetainK: 2, RetainMaxTurns: 12, Jobs: 2}
}

// keptSet lists the environments a run's report kept, with their tasks.
func keptSet(t *testing.T, files map[string]string) []string {
	t.Helper()
	var rep llm.BatchReport
	if err := json.Unmarshal([]byte(files["report.json"]), &rep); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	var kept []string
	for _, e := range rep.Envs {
		if e.Kept {
			kept = append(kept, e.Scenario.Name+" "+strings.TrimSpace(files[e.Scenario.Name+"/tasks.jsonl"]))
		}
	}
	sort.Strings(kept)
	return kept
}

// `synth llm --nats` on two `wasmenv worker` processes, on a NATS server
// with nkey users and per-role permissions (deploy/nats/fleet-auth.conf)
// and a fleet key, against the chat model's recorded answers served by a
// real HTTP server: both authentication modes, every stage, the retention
// gate's agent and examiner included. The kept set (environments and their
// tasks with their pass rates), and indeed every file of the output
// directory, is the local run's.
func TestSynthLLMCorpusOnTwoWorkersWithAuthIsTheLocalRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	const keyEnv = "WASMENV_FLEET_TEST_LLM_KEY"
	t.Setenv(keyEnv, llmreplay.Key) // the workers' environment: the key never travels in a job
	url, seeds := authServer(t)
	keyFile := filepath.Join(t.TempDir(), "fleet.key")
	key := fleetKey(t)
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := llmreplay.New(t, corpusRecording)
	reach := []string{"--allow-endpoint", srv.URL + "/v1", "--api-key-env", keyEnv, "--nats-nkey", seeds["worker"], "--fleet-key", keyFile}
	w1, w2 := startWorkerProcess(t, url, fastOpts, reach...), startWorkerProcess(t, url, fastOpts, reach...)

	for _, run := range []struct {
		file    string
		assumed bool
	}{{"scenarios-assumed.jsonl", true}, {"scenarios-tools.jsonl", false}} {
		scenarios := corpusScenarios(t, run.file, 2)
		ref := t.TempDir()
		if _, err := llm.Run(context.Background(), corpusRunConfig(srv.URL, ref, run.assumed, scenarios)); err != nil {
			t.Fatal(err)
		}
		want := relative(withoutWork(tree(t, ref)), ref)

		out := t.TempDir()
		cfg := corpusRunConfig(srv.URL, out, run.assumed, scenarios)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		scenarios, rep, err := llm.Plan(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		refs, specs, err := fleet.PlanSynthLLM(cfg, scenarios)
		if err != nil {
			t.Fatal(err)
		}
		output := fleet.CreateSynthLLMOutput(out, refs)
		d := &fleet.Driver{NC: connectAs(t, url, seeds["driver"]), FleetKey: key, Log: t.Logf, Options: fastOpts}
		err = d.RunSynthLLM(ctx, specs, refs, output)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Finish(out, output.Reports); err != nil {
			t.Fatal(err)
		}
		got := relative(tree(t, out), out)
		wantKept, gotKept := keptSet(t, want), keptSet(t, got)
		if len(wantKept) != len(scenarios) {
			t.Fatalf("%s: the local run kept %d of %d environments", run.file, len(wantKept), len(scenarios))
		}
		if strings.Join(gotKept, "\n") != strings.Join(wantKept, "\n") {
			t.Fatalf("%s: on the fleet kept\n%s\nlocally\n%s", run.file, strings.Join(gotKept, "\n"), strings.Join(wantKept, "\n"))
		}
		sameTree(t, run.file+" on two workers with auth", got, want)
	}
	// Both workers took scenarios: the run was spread, not one worker's.
	for i, w := range []*workerProcess{w1, w2} {
		if !strings.Contains(w.log.String(), " done (") {
			t.Errorf("worker %d took no scenario:\n%s", i+1, w.log.String())
		}
	}
}
