package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// Worker pulls jobs from the work queue and runs them. A job is
// acknowledged only after its result is stored; while it runs the worker
// sends a heartbeat every AckWait/3, so a long job is kept and a dead or
// stopped worker's job is redelivered after AckWait.
type Worker struct {
	NC      *nats.Conn
	Options Options
	// Slots is how many jobs run at once (default 1). Each job runs its
	// group's rollouts at once.
	Slots int
	// CacheDir keeps fetched bundles (verified) across restarts; "": none.
	CacheDir string
	// Runtime is passed to runtime.LoadBundle.
	Runtime runtime.Options
	// MaxEnvs is how many loaded bundles stay in memory (default 16); the
	// least recently used idle one is closed past that.
	MaxEnvs int
	// Endpoints are the model endpoints jobs may reach and the variable
	// holding the key sent there: the worker's, never a job's.
	Endpoints Endpoints
	// FleetKey, when set, is the fleet's shared secret (wire.go): the
	// worker runs only jobs signed under it and signs its results and
	// dead letters. nil: jobs are taken unsigned, results sent unsigned.
	FleetKey []byte
	// Name identifies the worker in dead letters (default host:pid).
	Name string
	// Log, when set, receives one line per event.
	Log func(format string, args ...any)

	store    *store
	cache    *bundleCache
	mu       sync.Mutex
	policies map[string]rl.Policy // by the policy spec's JSON: one client per endpoint
}

// Run works until ctx is done, then returns nil. A job running then is
// given back (nak) for another worker.
func (w *Worker) Run(ctx context.Context) error {
	err := w.run(ctx)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (w *Worker) run(ctx context.Context) error {
	js, err := jetstream.New(w.NC)
	if err != nil {
		return errorf(CodeUnavailable, err, "jetstream")
	}
	w.store, err = setup(ctx, js, w.Options)
	if err != nil {
		return err
	}
	cons, err := w.store.consumer(ctx)
	if err != nil {
		return err
	}
	if w.Name == "" {
		host, _ := os.Hostname()
		w.Name = host + ":" + strconv.Itoa(os.Getpid())
	}
	w.cache = &bundleCache{dir: w.CacheDir, opts: w.Runtime, max: w.MaxEnvs}
	defer w.cache.close()
	// Jobs whose every delivery died with its worker reach MaxDeliver
	// with nobody to say why: one worker of the pool writes their dead letter.
	adv, err := w.NC.QueueSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+StreamJobs+"."+ConsumerWorkers,
		"wasmenv-workers", func(m *nats.Msg) { w.maxDeliveries(ctx, m) })
	if err != nil {
		return errorf(CodeUnavailable, err, "advisories")
	}
	defer adv.Unsubscribe()
	// One line at start, so that a worker whose stderr is a file says it
	// is up, where, and what it may do (issue 38: workers said nothing).
	endpoints := "none"
	if len(w.Endpoints.Allow) > 0 {
		endpoints = strings.Join(w.Endpoints.Allow, ", ")
	}
	w.logf("%s ready on %s: %d job slots, fleet key %v, model endpoints %s", w.Name, w.NC.ConnectedUrlRedacted(),
		max(w.Slots, 1), w.FleetKey != nil, endpoints)
	var wg sync.WaitGroup
	for range max(w.Slots, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				msg, err := cons.Next(jetstream.FetchMaxWait(2 * time.Second))
				if err != nil {
					if !errors.Is(err, nats.ErrTimeout) && ctx.Err() == nil {
						w.logf("fetch: %v", err)
						sleep(ctx, time.Second)
					}
					continue
				}
				w.handle(ctx, msg)
			}
		}()
	}
	wg.Wait()
	return nil
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		w.Log(format, args...)
	}
}

// handle runs one delivery of a job to its end: acked, naked or dead.
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		msg.Term()
		return
	}
	if !jobSigned(w.FleetKey, msg.Subject(), msg.Data(), msg.Headers()) {
		// Not a driver's: neither run nor answered, nor dead-lettered in
		// this worker's name.
		w.logf("job on %s: not signed with the fleet key (dropped)", msg.Subject())
		msg.Term()
		return
	}
	job, err := decodeJob(msg.Data())
	if err != nil { // no delivery will read it better
		run := strings.TrimPrefix(msg.Subject(), subjectJobs)
		w.logf("job on %s: %v (unreadable, dead letter)", msg.Subject(), err)
		d := &DeadLetter{Run: run, Index: -1, Deliveries: meta.NumDelivered,
			Reason: err.Error(), Job: truncate(string(msg.Data()), 1024)}
		// The job's index and digest, when they can be read, let its
		// driver know it as its own.
		var id struct {
			Index  *int   `json:"index"`
			Digest string `json:"digest"`
		}
		if json.Unmarshal(msg.Data(), &id) == nil && id.Index != nil {
			d.Index, d.Digest = *id.Index, id.Digest
		}
		w.deadLetter(ctx, d, fmt.Sprintf("%s.seq%d", run, meta.Sequence.Stream))
		msg.Term()
		return
	}
	beat, stop := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(max(w.store.opts.AckWait/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-beat.Done():
				return
			case <-t.C:
				msg.InProgress()
			}
		}
	}()
	res, err := w.runJob(ctx, job)
	if err == nil {
		err = w.storeResult(ctx, job, res)
	}
	stop()
	switch {
	case err == nil:
		if err := msg.DoubleAck(ctx); err != nil {
			// The result is stored; a redelivery finds the same one (keyed by job).
			w.logf("job %s: ack: %v", job.id(), err)
		}
		w.logf("job %s done (%s/%s, delivery %d)", job.id(), job.Env, job.label(), meta.NumDelivered)
	case ctx.Err() != nil:
		msg.Nak() // shutting down: another worker takes it now
	case int(meta.NumDelivered) >= w.store.opts.MaxDeliver:
		w.logf("job %s: %v (delivery %d, giving up)", job.id(), err, meta.NumDelivered)
		w.deadLetter(ctx, &DeadLetter{Run: job.Run, Index: job.Index, Env: job.Env, Task: job.label(),
			Deliveries: meta.NumDelivered, Reason: err.Error(), Digest: job.Digest}, job.id())
		msg.Term()
	default:
		w.logf("job %s: %v (delivery %d, retrying)", job.id(), err, meta.NumDelivered)
		msg.NakWithDelay(time.Duration(meta.NumDelivered) * 200 * time.Millisecond)
	}
}

// runJob runs a job's group.
func (w *Worker) runJob(ctx context.Context, job *Job) (*Result, error) {
	switch job.Kind {
	case KindSynth:
		return w.runSynthJob(ctx, job)
	case KindSynthLLM:
		return runSynthLLM(ctx, job.SynthLLM, job.Index, &w.Endpoints, func(s string) { w.logf("job %s: %s", job.id(), s) })
	}
	env, release, err := w.cache.acquire(ctx, w.store, job.Bundle)
	if err != nil {
		return nil, err
	}
	defer release()
	if env.Name() != job.Env {
		return nil, errorf(CodeBadBundle, nil, "bundle %s is environment %q, the job says %q", job.Bundle, env.Name(), job.Env)
	}
	policy, err := w.policy(&job.Spec.Policy)
	if err != nil {
		return nil, err
	}
	return runGroup(ctx, env, job.Spec, job.GroupRef, policy, &w.Endpoints)
}

func (w *Worker) policy(p *PolicySpec) (rl.Policy, error) {
	key, _ := json.Marshal(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if pol := w.policies[string(key)]; pol != nil {
		return pol, nil
	}
	pol, err := p.build(&w.Endpoints)
	if err != nil {
		return nil, err
	}
	if w.policies == nil {
		w.policies = map[string]rl.Policy{}
	}
	w.policies[string(key)] = pol
	return pol, nil
}

// storeResult publishes the result bound to its job (wire.go): the job's
// index and digest, the SHA-256 of its body and its summary, signed under
// the fleet key. Its message id is the job's identity and the signature's
// (or, without a key, the body's) first digits: the stream drops a
// redelivered job's identical result within its duplicate window, and a
// forged result published first under the job's id does not hide the
// honest one. The body is the group's JSONL as is; the summary travels in
// a header.
func (w *Worker) storeResult(ctx context.Context, job *Job, res *Result) error {
	sum, err := json.Marshal(res.Summary)
	if err != nil {
		return err
	}
	body := bodySum(res.Lines)
	m := nats.NewMsg(subjectResults + job.Run)
	m.Header.Set(headerIndex, strconv.Itoa(job.Index))
	m.Header.Set(headerDigest, job.Digest)
	m.Header.Set(headerBodySum, body)
	m.Header.Set(headerSummary, string(sum))
	if job.Kind == KindSynth || job.Kind == KindSynthLLM {
		// An environment is stored by content: a redelivered job that
		// made the same bytes stores nothing new.
		name := "env-" + body
		if err := w.store.putOnce(ctx, w.store.envs, name, res.Lines); err != nil {
			return errorf(CodeUnavailable, err, "store environment %s", job.id())
		}
		m.Header.Set(headerEnvObject, name)
	} else if len(res.Lines)+len(sum) > int(w.NC.MaxPayload())-4096 {
		// Named by content too: another result cannot take its name.
		name := job.Run + "/" + strconv.Itoa(job.Index) + "/" + body
		if err := w.store.putOnce(ctx, w.store.bodies, name, res.Lines); err != nil {
			return errorf(CodeUnavailable, err, "store result %s", job.id())
		}
		m.Header.Set(headerObject, name)
	} else {
		m.Data = res.Lines
	}
	tag := body
	if w.FleetKey != nil {
		tag = mac(w.FleetKey, "result", resultParts(m.Subject, m.Header)...)
		m.Header.Set(headerMAC, tag)
	}
	err = retry(ctx, func(ctx context.Context) error {
		_, err := w.store.js.PublishMsg(ctx, m, jetstream.WithMsgID(job.id()+"."+tag[:16]))
		return err
	})
	if err != nil {
		return errorf(CodeUnavailable, err, "publish result %s", job.id())
	}
	return nil
}

func (w *Worker) deadLetter(ctx context.Context, d *DeadLetter, id string) {
	d.Worker = w.Name
	run := d.Run
	if !validRun(run) {
		run = "unknown"
	}
	m := nats.NewMsg(subjectDead + run)
	m.Data, _ = json.Marshal(d)
	signDead(w.FleetKey, m)
	if _, err := w.store.js.PublishMsg(ctx, m, jetstream.WithMsgID("dead."+id)); err != nil {
		w.logf("dead letter %s: %v", id, err)
	}
}

// maxDeliveries handles the server's advisory that a job reached
// MaxDeliver without an ack or a term: its dead letter says so, and the job
// leaves the work queue.
func (w *Worker) maxDeliveries(ctx context.Context, m *nats.Msg) {
	var a struct {
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries uint64 `json:"deliveries"`
	}
	if json.Unmarshal(m.Data, &a) != nil || a.StreamSeq == 0 {
		return
	}
	raw, err := w.store.jobs.GetMsg(ctx, a.StreamSeq)
	if err != nil {
		return // already handled, or acked meanwhile
	}
	if !jobSigned(w.FleetKey, raw.Subject, raw.Data, raw.Header) {
		return // not a driver's job: nothing to say about it
	}
	d := &DeadLetter{Run: strings.TrimPrefix(raw.Subject, subjectJobs), Index: -1, Deliveries: a.Deliveries,
		Reason: fmt.Sprintf("delivered %d times without an acknowledgement: each time the worker died or stalled past the ack wait (%s)", a.Deliveries, w.store.opts.AckWait)}
	id := fmt.Sprintf("%s.seq%d", d.Run, a.StreamSeq)
	if job, err := decodeJob(raw.Data); err == nil {
		d.Run, d.Index, d.Env, d.Task, d.Digest, id = job.Run, job.Index, job.Env, job.label(), job.Digest, job.id()
	}
	w.deadLetter(ctx, d, id)
	w.store.jobs.DeleteMsg(ctx, a.StreamSeq)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
