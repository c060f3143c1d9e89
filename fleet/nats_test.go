package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmenv/wasmenv/fleet"
)

var fastOpts = fleet.Options{AckWait: 2 * time.Second, MaxDeliver: 3}

func drive(t *testing.T, url string, spec *fleet.Spec, files ...*fleet.BundleFile) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := &memOutput{}
	d := &fleet.Driver{NC: connect(t, url)}
	_, err := d.Run(ctx, files, spec, plan(t, spec, files...), out)
	return out.file(t), err
}

// A fleet of 1 or 3 workers writes the bytes of the single-process run,
// for the random and the oracle policies, over two bundles.
func TestFleetOutputEqualsLocalRun(t *testing.T) {
	store, calendar := bundle(t, "store"), bundle(t, "calendar")
	for _, workers := range []int{1, 3} {
		url := startServer(t)
		startWorkers(t, url, workers, fastOpts)
		for _, spec := range []*fleet.Spec{
			{Group: 4, Seed: 11, MaxTurns: 6, Policy: fleet.PolicySpec{Kind: "random"}},
			{Group: 2, Seed: 5, MaxTurns: 40, Policy: fleet.PolicySpec{Kind: "oracle"}},
		} {
			got, err := drive(t, url, spec, store, calendar)
			if err != nil {
				t.Fatal(err)
			}
			if want := reference(t, spec, store, calendar); !bytes.Equal(got, want) {
				t.Fatalf("%d workers, %s: %d bytes, the local run %d; they differ", workers, spec.Policy.Kind, len(got), len(want))
			}
		}
	}
}

// Results larger than a message may be travel through the object store:
// on a server whose messages are at most 48 KiB the output is still the
// local run's (without the object store every result would be refused).
func TestLargeResultsTravelAsObjects(t *testing.T) {
	store := bundle(t, "store")
	s, err := fleet.StartServer(fleet.ServerConfig{Port: -1, StoreDir: t.TempDir(), MaxPayload: 48 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	url := s.ClientURL()
	startWorkers(t, url, 2, fastOpts)
	spec := &fleet.Spec{Group: 24, Seed: 2, MaxTurns: 12, Tasks: "cancel-*,return-*", Policy: fleet.PolicySpec{Kind: "random"}}
	want := reference(t, spec, store)
	if sent := sentBytes(t, spec, store); sent/len(plan(t, spec, store)) < 64<<10 {
		t.Fatalf("groups of %d bytes on average: too small to need the object store", sent/len(plan(t, spec, store)))
	}
	got, err := drive(t, url, spec, store)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%d bytes, the local run %d; they differ", len(got), len(want))
	}
}

// A bundle changed in the object store is refused by every worker as
// envpkg refuses a tampered file; after MaxDeliver deliveries the job is
// in the dead-letter stream with that reason, and the driver says so. A
// bad copy already there when a run starts is replaced by the driver's
// upload (the object's digest is not the bundle's), and the run goes on.
func TestTamperedBundleGoesToDeadLetter(t *testing.T) {
	store := bundle(t, "store")
	for name, bad := range map[string][]byte{
		"tampered":  tamper(store.Data),
		"truncated": store.Data[:len(store.Data)/2],
	} {
		t.Run(name, func(t *testing.T) {
			url := startServer(t)
			nc := connect(t, url)
			js, _ := jetstream.New(nc)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			// The bucket as the fleet makes it, holding a bad copy under the real hash.
			obs, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: fleet.BucketBundles})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := obs.PutBytes(ctx, store.Bundle.Hash, bad); err != nil {
				t.Fatal(err)
			}
			spec := &fleet.Spec{Group: 1, MaxTurns: 2, Tasks: "cancel-*", Policy: fleet.PolicySpec{Kind: "random"}}
			refs := plan(t, spec, store)
			done := make(chan error, 1)
			go func() {
				_, err := (&fleet.Driver{NC: connect(t, url), RunID: "tamper", Options: fastOpts}).Run(ctx, []*fleet.BundleFile{store}, spec, refs, &memOutput{})
				done <- err
			}()
			queuedJobs(ctx, t, js, "tamper", len(refs)) // uploaded (repaired), jobs queued
			if got, err := obs.GetBytes(ctx, store.Bundle.Hash); err != nil || !bytes.Equal(got, store.Data) {
				t.Fatalf("the driver's upload left the bad copy (%v)", err)
			}
			// Tampered after the upload: every worker refuses it.
			if _, err := obs.PutBytes(ctx, store.Bundle.Hash, bad); err != nil {
				t.Fatal(err)
			}
			startWorkers(t, url, 2, fastOpts)
			err = <-done
			if !errors.Is(err, &fleet.Error{Code: fleet.CodeDeadLetter}) || !strings.Contains(err.Error(), "invalid bundle") {
				t.Fatalf("got %v, want a dead letter saying the bundle is invalid", err)
			}
			if !strings.Contains(err.Error(), "after 3 deliveries") {
				t.Fatalf("got %v, want it given up after MaxDeliver (3) deliveries", err)
			}
			dl := deadLetters(t, js)
			if len(dl) == 0 || !strings.Contains(dl[0].Reason, "invalid bundle") || dl[0].Deliveries != 3 {
				t.Fatalf("dead letters: %+v", dl)
			}
		})
	}
}

func tamper(data []byte) []byte {
	b := bytes.Clone(data)
	b[len(b)/2] ^= 0xff // inside the module: the content hash no longer matches
	return b
}

// A job that is not a job at all goes to the dead-letter stream at once,
// with the reason and the message as it came, and so do jobs that no
// delivery can run (a billion rollouts at once, a path for a bundle).
func TestUnreadableJobGoesToDeadLetter(t *testing.T) {
	url := startServer(t)
	startWorkers(t, url, 1, fastOpts)
	nc := connect(t, url)
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Wait until the workers made the streams and their consumer.
	for {
		if _, err := js.Consumer(ctx, fleet.StreamJobs, fleet.ConsumerWorkers); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := js.Publish(ctx, "wasmenv.jobs.poison", []byte(`{"run": "poison", "index": 0, <not json`)); err != nil {
		t.Fatal(err)
	}
	// A job asking for a billion rollouts at once, and one naming a path
	// for a bundle: refused with a reason, and the worker lives on.
	huge := `{"run":"huge","index":0,"bundle":"0123456789abcdef","env":"store","task":"t","spec":{"group":1000000000,"max_turns":1,"policy":{"kind":"random"}}}`
	path := `{"run":"path","index":0,"bundle":"../../etc/passwd","env":"store","task":"t","spec":{"group":1,"max_turns":1,"policy":{"kind":"random"}}}`
	// A task that is a pattern would run every task it matches; an
	// evaluation's chunk of tasks is checked alike.
	glob := `{"run":"glob","index":0,"bundle":"0123456789abcdef","env":"store","task":"*","spec":{"group":1,"max_turns":1,"policy":{"kind":"random"}}}`
	chunk := `{"run":"chunk","index":0,"bundle":"0123456789abcdef","env":"store","tasks":["a","b*"],"spec":{"group":1,"max_turns":1,"eval":true,"policy":{"kind":"random"}}}`
	// A kind that is not its body's.
	kind := `{"run":"kind","kind":"synth","index":0,"bundle":"0123456789abcdef","env":"store","task":"t","spec":{"group":1,"max_turns":1,"policy":{"kind":"random"}}}`
	for subj, body := range map[string]string{"wasmenv.jobs.huge": huge, "wasmenv.jobs.path": path, "wasmenv.jobs.glob": glob, "wasmenv.jobs.chunk": chunk, "wasmenv.jobs.kind": kind} {
		if _, err := js.Publish(ctx, subj, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"poison": "not JSON", "huge": "want 1 to 4096", "path": "not a content hash",
		"glob": "want one task id", "chunk": `"b*" is not a task id`, "kind": `its body is of kind "rollout"`}
	for {
		dl := deadLetters(t, js)
		if len(dl) == len(want) {
			for _, d := range dl {
				if !strings.Contains(d.Reason, want[d.Run]) {
					t.Fatalf("dead letter of %s: %+v, want the reason to say %q", d.Run, d, want[d.Run])
				}
				if d.Deliveries != 1 || d.Run == "poison" && !strings.Contains(d.Job, "<not json") {
					t.Fatalf("dead letter: %+v", d)
				}
			}
			return
		}
		if ctx.Err() != nil {
			t.Fatal("no dead letter")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func deadLetters(t *testing.T, js jetstream.JetStream) []fleet.DeadLetter {
	t.Helper()
	ctx := context.Background()
	s, err := js.Stream(ctx, fleet.StreamDead)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []fleet.DeadLetter
	for seq := info.State.FirstSeq; seq > 0 && seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			continue
		}
		var d fleet.DeadLetter
		if err := json.Unmarshal(m.Data, &d); err != nil {
			t.Fatalf("dead letter %d is not readable: %v", seq, err)
		}
		out = append(out, d)
	}
	return out
}

// A run cancelled half way keeps the results it stored; the same run id
// resumes it, running only the other groups, and the output is the local
// run's. The id of a finished run can be used again.
func TestResumeRunByID(t *testing.T) {
	store := bundle(t, "store")
	url := startServer(t)
	startWorkers(t, url, 1, fastOpts)
	spec := &fleet.Spec{Group: 2, Seed: 9, MaxTurns: 4, Policy: fleet.PolicySpec{Kind: "random"}}
	refs := plan(t, spec, store)
	want := reference(t, spec, store)

	ctx, cancel := context.WithCancel(context.Background())
	first := &fleet.Driver{NC: connect(t, url), RunID: "resume-1", Progress: func(done, total int) {
		if done >= 4 {
			cancel()
		}
	}}
	if _, err := first.Run(ctx, []*fleet.BundleFile{store}, spec, refs, &memOutput{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("first attempt: %v, want cancelled", err)
	}
	var logs syncBuffer
	second := &fleet.Driver{NC: connect(t, url), RunID: "resume-1", Log: func(f string, a ...any) { fmt.Fprintf(&logs, f+"\n", a...) }}
	out := &memOutput{}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel2()
	if _, err := second.Run(ctx2, []*fleet.BundleFile{store}, spec, refs, out); err != nil {
		t.Fatal(err)
	}
	if got := out.file(t); !bytes.Equal(got, want) {
		t.Fatalf("resumed: %d bytes, the local run %d; they differ", len(got), len(want))
	}
	var kept, enqueued int
	for _, line := range strings.Split(logs.String(), "\n") {
		if _, err := fmt.Sscanf(line, "run resume-1: %d results kept from earlier attempts, %d jobs enqueued", &kept, &enqueued); err == nil {
			break
		}
	}
	if kept < 4 || kept+enqueued != len(refs) {
		t.Fatalf("resumed with %d results kept and %d jobs enqueued for %d groups:\n%s", kept, enqueued, len(refs), logs.String())
	}

	// The id of a finished run (its results purged) runs everything again:
	// its new results are not taken for duplicates of the old.
	out = &memOutput{}
	if _, err := second.Run(ctx2, []*fleet.BundleFile{store}, spec, refs, out); err != nil {
		t.Fatal(err)
	}
	if got := out.file(t); !bytes.Equal(got, want) {
		t.Fatalf("run again: %d bytes, the local run %d; they differ", len(got), len(want))
	}
}
