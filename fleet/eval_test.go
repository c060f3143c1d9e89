package fleet_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/rl"
)

func evalPlan(t testing.TB, spec *fleet.Spec, chunk int, files ...*fleet.BundleFile) []fleet.GroupRef {
	t.Helper()
	var bs []*envpkg.Bundle
	for _, f := range files {
		bs = append(bs, f.Bundle)
	}
	refs, err := fleet.PlanEval(bs, spec.Tasks, chunk)
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

// evalLocal is `wasmenv eval` without NATS: the chunks in this process.
func evalLocal(t testing.TB, spec *fleet.Spec, chunk, parallel int, files ...*fleet.BundleFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	out, err := fleet.CreateEvalOutput("-", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fleet.RunLocal(context.Background(), loadAll(t, files...), spec, evalPlan(t, spec, chunk, files...), parallel, out, nil); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readEval splits an evaluation file into its task records and summary.
func readEval(t testing.TB, data []byte) ([]fleet.EvalRecord, fleet.EvalSummary) {
	t.Helper()
	var recs []fleet.EvalRecord
	var sum fleet.EvalSummary
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"type":"summary"`)) {
			if err := json.Unmarshal(sc.Bytes(), &sum); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var r fleet.EvalRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs, sum
}

// An evaluation's records are the engine's outcomes: each task's rewards
// are those of the rollouts `wasmenv rollout` writes for the same seeds,
// and the file is the same bytes however the tasks are chunked and however
// many chunks run at once. The oracle solves every task.
func TestEvalRecordsAreTheEnginesWhateverTheChunks(t *testing.T) {
	store, calendar := bundle(t, "store"), bundle(t, "calendar")
	for name, spec := range map[string]*fleet.Spec{
		"random": {Group: 3, Seed: 7, MaxTurns: 6, Policy: fleet.PolicySpec{Kind: "random"}, Eval: true},
		"oracle": {Group: 2, Seed: 5, MaxTurns: 40, Tasks: "cancel-*,create-*,list-*", Policy: fleet.PolicySpec{Kind: "oracle"}, Eval: true},
	} {
		t.Run(name, func(t *testing.T) {
			want := evalLocal(t, spec, 1, 1, store, calendar)
			for _, c := range []struct{ chunk, parallel int }{{4, 1}, {4, 3}, {fleet.MaxChunk, 2}} {
				if got := evalLocal(t, spec, c.chunk, c.parallel, store, calendar); !bytes.Equal(got, want) {
					t.Fatalf("chunks of %d, %d at once: %d bytes, chunks of 1: %d bytes; they differ\n%s\n%s", c.chunk, c.parallel, len(got), len(want), got, want)
				}
			}
			recs, sum := readEval(t, want)
			// The rollouts of the rollout engine, one group per task.
			rs := rollouts(t, spec, store, calendar)
			if len(recs) != len(plan(t, spec, store, calendar)) || sum.Tasks != len(recs) || sum.Rollouts != len(rs) {
				t.Fatalf("%d records, summary of %d tasks and %d rollouts; the plan has %d tasks, the engine wrote %d rollouts",
					len(recs), sum.Tasks, sum.Rollouts, len(plan(t, spec, store, calendar)), len(rs))
			}
			successes := 0
			for _, rec := range recs {
				if rec.Samples != spec.Group {
					t.Fatalf("%s: %d samples, want %d", rec.Task, rec.Samples, spec.Group)
				}
				for i, reward := range rec.Rewards {
					r := rs[rec.Env+"/"+rec.Task+"/"+strconv.Itoa(i)]
					if r == nil || r.Reward != reward {
						t.Fatalf("%s/%s sample %d: reward %v, the engine's rollout %+v", rec.Env, rec.Task, i, reward, r)
					}
				}
				successes += rec.Successes
				if name == "oracle" && rec.Successes != rec.Samples {
					t.Errorf("the oracle failed %s/%s: %+v", rec.Env, rec.Task, rec)
				}
			}
			if sum.Successes != successes || sum.K != spec.Group || len(sum.Envs) != 2 || sum.Envs[0].Env != "store" {
				t.Fatalf("summary %+v, %d successes in the records", sum, successes)
			}
		})
	}
}

// rollouts runs the rollout engine over the bundles, by env/task/sample.
func rollouts(t testing.TB, spec *fleet.Spec, files ...*fleet.BundleFile) map[string]*rl.Rollout {
	t.Helper()
	s := *spec
	s.Eval = false
	out := map[string]*rl.Rollout{}
	err := rl.ReadRollouts(bytes.NewReader(reference(t, &s, files...)), func(r *rl.Rollout) error {
		out[r.Env+"/"+r.Task+"/"+strconv.Itoa(r.Index)] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An evaluation on the fleet: chunks of tasks are jobs on the same work
// queue. Real worker processes; one is SIGKILLed while it holds a chunk;
// the file is the local evaluation's, byte for byte, and a random-policy
// evaluation on the survivors is too.
func TestEvalOnFleetWithKilledWorker(t *testing.T) {
	store, calendar := bundle(t, "store"), bundle(t, "calendar")
	llm := newFakeLLM(t)
	spec := llm.spec(2)
	spec.Eval, spec.Tasks = true, "cancel-*,modify-*,list-*"
	want := evalLocal(t, spec, 1, 1, store, calendar)
	url := startServer(t)
	release := llm.holdRequests()
	victim := startWorkerProcess(t, url, fastOpts, llm.allowFlag()...)
	done := evalAsync(t, url, spec, 2, store, calendar)
	llm.waitArrival(t, done)
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.cmd.Wait()
	release()
	startWorkerProcess(t, url, fastOpts, llm.allowFlag()...)
	startWorkerProcess(t, url, fastOpts, llm.allowFlag()...)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !bytes.Equal(r.out, want) {
		t.Fatalf("after the kill: %d bytes, the local evaluation %d; they differ\n%s\n%s", len(r.out), len(want), r.out, want)
	}

	random := &fleet.Spec{Group: 4, Seed: 9, MaxTurns: 6, Policy: fleet.PolicySpec{Kind: "random"}, Eval: true}
	want = evalLocal(t, random, 1, 1, store, calendar)
	r = <-evalAsync(t, url, random, 3, store, calendar)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !bytes.Equal(r.out, want) {
		t.Fatalf("random on 2 workers: %d bytes, the local evaluation %d; they differ", len(r.out), len(want))
	}
}

// evalAsync drives an evaluation in chunks of chunk tasks on url.
func evalAsync(t *testing.T, url string, spec *fleet.Spec, chunk int, files ...*fleet.BundleFile) <-chan runResult {
	t.Helper()
	ch := make(chan runResult, 1)
	refs := evalPlan(t, spec, chunk, files...)
	nc := connect(t, url)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var buf bytes.Buffer
		out, _ := fleet.CreateEvalOutput("-", &buf)
		_, err := (&fleet.Driver{NC: nc, Log: t.Logf}).Run(ctx, files, spec, refs, out)
		if err == nil {
			err = out.Close()
		}
		ch <- runResult{buf.Bytes(), err}
	}()
	return ch
}

// A worker's evaluation lines are read, not copied: a record that does not
// add up, or a field the format does not have, fails the run rather than
// shaping the file.
func TestEvalOutputRefusesBadRecords(t *testing.T) {
	for _, lines := range []string{
		`{"type":"task","env":"e","env_hash":"h","task":"t","samples":2,"successes":3,"rewards":[1,1]}`,
		`{"type":"task","env":"e","env_hash":"h","task":"t","samples":2,"successes":0,"rewards":[0]}`,
		`{"type":"summary"}`,
		`{"type":"task","samples":1,"rewards":[0],"extra":"<script>"}`,
		`not json`,
	} {
		var buf bytes.Buffer
		out, _ := fleet.CreateEvalOutput("-", &buf)
		err := out.WriteGroup([]byte(lines + "\n"))
		if !errors.Is(err, &fleet.Error{Code: fleet.CodeLost}) {
			t.Errorf("%s: %v, want a result_lost error", lines, err)
		}
		if out.Close() == nil || buf.Len() != 0 {
			t.Errorf("%s: closed without an error, or wrote %q", lines, buf.String())
		}
	}
}

// An evaluation job's tasks are checked as a job's task is: a chunk that
// is empty, too long or holds a pattern goes to the dead letters at once.
func TestEvalSpecRefusesWhatItCannotCount(t *testing.T) {
	spec := &fleet.Spec{Group: 2, MaxTurns: 3, Eval: true, DropEqual: true, Policy: fleet.PolicySpec{Kind: "random"}}
	if _, err := spec.Config(); err == nil || !strings.Contains(err.Error(), "drop-equal") {
		t.Fatalf("eval with drop-equal: %v", err)
	}
	if _, err := fleet.PlanEval(nil, "", 0); !errors.Is(err, &fleet.Error{Code: fleet.CodeBadInput}) {
		t.Fatalf("chunk 0: %v", err)
	}
}
