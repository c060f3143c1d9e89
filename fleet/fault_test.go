package fleet_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/fleet"
)

// runAsync drives spec on url in the background.
func runAsync(t *testing.T, url string, spec *fleet.Spec, files ...*fleet.BundleFile) <-chan runResult {
	t.Helper()
	ch := make(chan runResult, 1)
	refs := plan(t, spec, files...)
	nc := connect(t, url)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		out := &memOutput{}
		_, err := (&fleet.Driver{NC: nc, Log: t.Logf}).Run(ctx, files, spec, refs, out)
		ch <- runResult{out.file(t), err}
	}()
	return ch
}

type runResult struct {
	out []byte
	err error
}

// A real worker process SIGKILLed while it holds a job: the job is
// redelivered after the ack wait to the worker that joins, and the output
// is complete and the bytes of the single-process run.
func TestKilledWorkerProcessJobIsRedelivered(t *testing.T) {
	store := bundle(t, "store")
	llm := newFakeLLM(t)
	spec := llm.spec(2)
	spec.Tasks = "cancel-*,modify-*"
	want := reference(t, spec, store) // before holding: the reference answers at once
	url := startServer(t)
	release := llm.holdRequests()
	victim := startWorkerProcess(t, url, fastOpts, llm.allowFlag()...)
	done := runAsync(t, url, spec, store)
	llm.waitArrival(t, done) // the victim is inside a job
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.cmd.Wait()
	release()
	startWorkersReaching(t, url, 2, fastOpts, llm.allow())
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !bytes.Equal(r.out, want) {
		t.Fatalf("after the kill: %d bytes, the local run %d; they differ", len(r.out), len(want))
	}
}

// A worker process stopped (SIGSTOP) past the ack wait loses its job to
// the others; the run completes with the local run's bytes, and the
// stalled worker, resumed, finishes its copy without duplicating output.
func TestStalledWorkerPastAckWait(t *testing.T) {
	store := bundle(t, "store")
	llm := newFakeLLM(t)
	spec := llm.spec(2)
	spec.Tasks = "return-*"
	want := reference(t, spec, store)
	url := startServer(t)
	release := llm.holdRequests()
	stalled := startWorkerProcess(t, url, fastOpts, llm.allowFlag()...)
	done := runAsync(t, url, spec, store)
	llm.waitArrival(t, done)
	if err := stalled.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	release() // its request is answered, but it cannot read the answer
	startWorkersReaching(t, url, 2, fastOpts, llm.allow())
	r := <-done
	stalled.cmd.Process.Signal(syscall.SIGCONT)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !bytes.Equal(r.out, want) {
		t.Fatalf("with a stalled worker: %d bytes, the local run %d; they differ", len(r.out), len(want))
	}
	// Resumed, the stalled worker stores its now redundant result and goes on.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stalled.log.String(), " done (") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(stalled.log.String(), " done (") {
		t.Fatalf("the resumed worker did not finish its job:\n%s", stalled.log.String())
	}
}

// A job whose every delivery dies with its worker reaches MaxDeliver with
// nobody to fail it: the server's advisory makes another worker write its
// dead letter, and the driver reports it rather than waiting forever.
func TestJobThatKillsEveryWorkerGoesToDeadLetter(t *testing.T) {
	store := bundle(t, "store")
	llm := newFakeLLM(t)
	spec := llm.spec(1)
	spec.Tasks = "cancel-split-payment"
	url := startServer(t)
	opts := fleet.Options{AckWait: time.Second, MaxDeliver: 1}
	llm.holdRequests() // never released: the job never ends on its own
	victim := startWorkerProcess(t, url, opts, llm.allowFlag()...)
	done := runAsync(t, url, spec, store)
	llm.waitArrival(t, done)
	victim.cmd.Process.Signal(syscall.SIGKILL)
	victim.cmd.Wait()
	startWorkersReaching(t, url, 1, opts, llm.allow())
	r := <-done
	if !errors.Is(r.err, &fleet.Error{Code: fleet.CodeDeadLetter}) || !strings.Contains(r.err.Error(), "without an acknowledgement") {
		t.Fatalf("got %v, want a dead letter saying the job was never acknowledged", r.err)
	}
}

// A job that runs 2.5 times as long as the ack wait is kept by its
// worker's heartbeats: it is delivered once, so the model is asked once per
// rollout, not once per delivery.
func TestLongJobKeptByHeartbeats(t *testing.T) {
	store := bundle(t, "store")
	llm := newFakeLLM(t)
	spec := llm.spec(2)
	spec.Tasks = "cancel-split-payment"
	url := startServer(t)
	opts := fleet.Options{AckWait: 2 * time.Second, MaxDeliver: 5}
	var logs syncBuffer
	w := &fleet.Worker{NC: connect(t, url), Options: opts, Slots: 1, CacheDir: t.TempDir(), Endpoints: llm.allow(),
		Log: func(format string, args ...any) { fmt.Fprintf(&logs, format+"\n", args...) }}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { w.Run(ctx); close(stopped) }()
	t.Cleanup(func() { cancel(); <-stopped })
	startWorkersReaching(t, url, 1, opts, llm.allow()) // a second worker that would take a redelivered job
	release := llm.holdRequests()
	done := runAsync(t, url, spec, store)
	llm.waitArrival(t, done)
	time.Sleep(5 * opts.AckWait / 2)
	release()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	// Group of 2, one turn each (the fake answers without calling a tool).
	if n := llm.requests.Load(); n != 2 {
		t.Fatalf("%d policy requests for 2 rollouts of one turn: the job ran more than once\n%s", n, logs.String())
	}
}

// SIGTERM makes a worker process give its running job back at once (a
// nak, not the ack wait, here far longer than the run may take) and exit
// cleanly: a rolling update loses no time and no job.
func TestTerminatedWorkerGivesItsJobBack(t *testing.T) {
	store := bundle(t, "store")
	llm := newFakeLLM(t)
	spec := llm.spec(1)
	spec.Tasks = "cancel-split-payment"
	want := reference(t, spec, store)
	url := startServer(t)
	opts := fleet.Options{AckWait: 10 * time.Minute, MaxDeliver: 5}
	release := llm.holdRequests()
	leaving := startWorkerProcess(t, url, opts, llm.allowFlag()...)
	done := runAsync(t, url, spec, store) // fails after 2 minutes if the job is not given back
	llm.waitArrival(t, done)
	leaving.cmd.Process.Signal(syscall.SIGTERM)
	if err := leaving.cmd.Wait(); err != nil {
		t.Fatalf("worker after SIGTERM: %v\n%s", err, leaving.log.String())
	}
	release()
	startWorkersReaching(t, url, 1, opts, llm.allow())
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !bytes.Equal(r.out, want) {
		t.Fatalf("%d bytes, the local run %d; they differ", len(r.out), len(want))
	}
}
