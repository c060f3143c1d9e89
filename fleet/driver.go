package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
)

// BundleFile is a bundle as read from disk: its bytes travel, the decoded
// form plans the run.
type BundleFile struct {
	Data   []byte
	Bundle *envpkg.Bundle
}

// ReadBundle reads and verifies a bundle file.
func ReadBundle(data []byte) (*BundleFile, error) {
	b, err := envpkg.Decode(data)
	if err != nil {
		return nil, err
	}
	return &BundleFile{Data: data, Bundle: b}, nil
}

// Driver enqueues a run's jobs, follows their results and writes them in
// plan order.
type Driver struct {
	NC      *nats.Conn
	Options Options
	// RunID names the run (a subject token); default NewRunID(). Running
	// again with the id of a run that failed or was cancelled resumes it:
	// the results it stored are kept and only the other groups are run.
	RunID string
	// Progress, when set, is called after each new result.
	Progress func(done, total int)
	// Log, when set, receives one line per stage of the run, and one per
	// message refused (a result or dead letter not of this run's jobs, or
	// not signed).
	Log func(format string, args ...any)
	// FleetKey, when set, is the fleet's shared secret (wire.go): jobs are
	// signed under it, and only results and dead letters signed under it
	// are taken. nil: none is signed, and anything on the run's subjects
	// that answers one of its jobs (its index and digest) is taken.
	FleetKey []byte
}

func (d *Driver) logf(format string, args ...any) {
	if d.Log != nil {
		d.Log(format, args...)
	}
}

// Run runs refs (from Plan over the bundles' decoded forms) on the fleet
// and writes their lines to out in plan order. It returns when every group
// is written, when a job goes to the dead-letter stream (a *Error with
// CodeDeadLetter and the reason), or when ctx is done; it then removes the
// run's jobs still queued and its results. Run does not close out.
func (d *Driver) Run(ctx context.Context, bundles []*BundleFile, spec *Spec, refs []GroupRef, out Output) (*rl.Summary, error) {
	if _, err := spec.Config(); err != nil {
		return nil, err
	}
	if _, err := spec.Policy.Build(); err != nil {
		return nil, err
	}
	upload := func(ctx context.Context, s *store) error {
		for _, b := range bundles {
			if err := s.putBundle(ctx, b.Bundle.Hash, b.Data); err != nil {
				return err
			}
		}
		d.logf("%d bundles in the object store", len(bundles))
		return nil
	}
	return d.drive(ctx, refs, out, upload, func(ref GroupRef) *Job { return &Job{GroupRef: ref, Spec: spec} })
}

// drive runs the jobs of refs (made by job, which leaves Run and Attempt
// to drive) once upload has put what they need in the object store.
func (d *Driver) drive(ctx context.Context, refs []GroupRef, out Output, upload func(context.Context, *store) error, job func(GroupRef) *Job) (*rl.Summary, error) {
	run := d.RunID
	if run == "" {
		run = NewRunID()
	}
	if !validRun(run) {
		return nil, errorf(CodeBadInput, nil, "run id %q: want letters, digits, - and _", run)
	}
	js, err := jetstream.New(d.NC)
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "jetstream")
	}
	s, err := setup(ctx, js, d.Options)
	if err != nil {
		return nil, err
	}
	d.logf("run %s: streams ready", run)
	if err := upload(ctx, s); err != nil {
		return nil, err
	}
	start := time.Now()
	ok := false
	defer func() { s.cleanup(run, ok) }()

	// Follow results and dead letters from the start, before enqueuing.
	results, err := follow(ctx, js, StreamResults, subjectResults+run, jetstream.DeliverAllPolicy)
	if err != nil {
		return nil, err
	}
	defer results.Stop()
	// Dead letters of this attempt only: resuming is retrying.
	dead, err := follow(ctx, js, StreamDead, subjectDead+run, jetstream.DeliverNewPolicy)
	if err != nil {
		return nil, err
	}
	defer dead.Stop()
	asm := newAssembler(refs, out)
	checked := toolsetChecker{} // the toolset records checked, of this run
	// Every job as planned, stamped with its digest: a result or a dead
	// letter is taken only for one of these (wire.go).
	jobs := make(map[int]*Job, len(refs))
	for _, ref := range refs {
		j := job(ref)
		j.Run, j.Kind = run, j.bodyKind()
		j.stampDigest()
		jobs[ref.Index] = j
	}
	got := make(chan jetstream.Msg)
	failed := make(chan *DeadLetter, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the pumps
	go pump(ctx, results, func(m jetstream.Msg) {
		select {
		case got <- m:
		case <-ctx.Done():
		}
	})
	go pump(ctx, dead, func(m jetstream.Msg) {
		dl, err := d.deadLetterOf(m, run, jobs)
		if err != nil {
			d.logf("run %s: refused a dead letter: %v", run, err)
			return
		}
		select {
		case failed <- dl:
		default:
		}
	})
	receive := func() error {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case dl := <-failed:
			return errorf(CodeDeadLetter, nil, "run %s: %s", run, dl)
		case m := <-got:
			res, err := d.resultOf(ctx, s, m, run, jobs, checked)
			if err != nil {
				if errors.Is(err, errRefused) {
					d.logf("run %s: %v", run, err)
					return nil
				}
				return err
			}
			isNew, err := asm.add(res)
			if err != nil {
				return err
			}
			if n, _ := asm.done(); isNew && d.Progress != nil {
				d.Progress(n, len(refs))
			}
			return nil
		}
	}

	// Resuming: read the results an earlier attempt stored, then enqueue
	// the other groups only.
	var stored uint64
	err = retry(ctx, func(ctx context.Context) error {
		info, err := s.results.Info(ctx, jetstream.WithSubjectFilter(subjectResults+run))
		if err == nil {
			stored = info.State.Subjects[subjectResults+run]
		}
		return err
	})
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "results of run %s", run)
	}
	for range stored {
		if err := receive(); err != nil {
			return nil, err
		}
	}
	// Jobs of this attempt, with ids of their own: a job or result of an
	// earlier attempt (purged when it ended) does not hide this one's.
	attempt := NewRunID()[:8]
	enqueued := 0
	for _, ref := range refs {
		if asm.has(ref.Index) {
			continue
		}
		j := *jobs[ref.Index]
		j.Attempt = attempt
		m := nats.NewMsg(subjectJobs + run)
		m.Data, _ = json.Marshal(&j)
		signJob(d.FleetKey, m)
		err := retry(ctx, func(ctx context.Context) error {
			_, err := js.PublishMsg(ctx, m, jetstream.WithMsgID(j.id()))
			return err
		})
		if err != nil {
			return nil, errorf(CodeUnavailable, err, "enqueue job %d", ref.Index)
		}
		enqueued++
	}
	d.logf("run %s: %d results kept from earlier attempts, %d jobs enqueued", run, len(refs)-enqueued, enqueued)
	for {
		if _, all := asm.done(); all {
			ok = true
			return asm.sum.finish(time.Since(start).Seconds()), nil
		}
		if err := receive(); err != nil {
			return nil, err
		}
	}
}

// NewRunID returns a random run id.
func NewRunID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// follow reads a subject of a stream in order, from its first message or
// from now on.
func follow(ctx context.Context, js jetstream.JetStream, stream, subject string, from jetstream.DeliverPolicy) (jetstream.MessagesContext, error) {
	var c jetstream.Consumer
	err := retry(ctx, func(ctx context.Context) (err error) {
		c, err = js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}, DeliverPolicy: from})
		return err
	})
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "follow %s", subject)
	}
	it, err := c.Messages()
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "follow %s", subject)
	}
	return it, nil
}

// pump hands the iterator's messages to f until ctx is done or the
// iterator is closed.
func pump(ctx context.Context, it jetstream.MessagesContext, f func(jetstream.Msg)) {
	for ctx.Err() == nil {
		m, err := it.Next()
		if errors.Is(err, jetstream.ErrMsgIteratorClosed) || errors.Is(err, nats.ErrConnectionClosed) {
			return
		}
		if err != nil {
			sleep(ctx, 100*time.Millisecond) // the ordered consumer is being recreated
			continue
		}
		f(m)
	}
}

// errRefused marks a message on the run's subjects that is not taken:
// the run goes on without it.
var errRefused = errors.New("refused")

// resultOf reads a result message and its body, and takes it only if it
// answers one of jobs (its index and digest), signed under the fleet key
// when there is one, its body the bytes it names (wire.go).
func (d *Driver) resultOf(ctx context.Context, s *store, m jetstream.Msg, run string, jobs map[int]*Job, checked toolsetChecker) (*Result, error) {
	h := m.Headers()
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("%w a result (index %q): %s", errRefused, truncate(h.Get(headerIndex), 16), fmt.Sprintf(format, args...))
	}
	index, err := strconv.Atoi(h.Get(headerIndex))
	job := jobs[index]
	switch {
	case err != nil || job == nil:
		return nil, refuse("not a job of this run")
	case h.Get(headerDigest) != job.Digest:
		return nil, refuse("it answers another job than this run's (digest %q)", truncate(h.Get(headerDigest), 64))
	case d.FleetKey != nil && !macOK(d.FleetKey, h.Get(headerMAC), "result", resultParts(m.Subject(), h)...):
		return nil, refuse("not signed with the fleet key")
	}
	r := &Result{Index: index, Lines: m.Data()}
	if err := json.Unmarshal([]byte(h.Get(headerSummary)), &r.Summary); err != nil || r.Summary == nil {
		return nil, refuse("no summary (%v)", err)
	}
	for header, o := range map[string]jetstream.ObjectStore{headerObject: s.bodies, headerEnvObject: s.envs} {
		name := h.Get(header)
		if name == "" {
			continue
		}
		err = retry(ctx, func(ctx context.Context) (err error) {
			r.Lines, err = o.GetBytes(ctx, name) // the object store checks its digest
			return err
		})
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			return nil, refuse("its object %s is not in the store", truncate(name, 100))
		}
		if err != nil {
			return nil, errorf(CodeLost, err, "result object %s", name)
		}
	}
	if bodySum(r.Lines) != h.Get(headerBodySum) {
		return nil, refuse("its body is not the one it names")
	}
	if job.Kind == KindRollout {
		// A group's toolset records: ids are their content's.
		if err := checked.check(r.Lines); err != nil {
			return nil, refuse("%v", err)
		}
	}
	return r, nil
}

// deadLetterOf reads a dead letter and takes it only if it is of one of
// jobs (its index and digest), signed under the fleet key when there is
// one.
func (d *Driver) deadLetterOf(m jetstream.Msg, run string, jobs map[int]*Job) (*DeadLetter, error) {
	if d.FleetKey != nil && !macOK(d.FleetKey, m.Headers().Get(headerMAC), "dead", m.Subject(), string(m.Data())) {
		return nil, errors.New("not signed with the fleet key")
	}
	var dl DeadLetter
	if err := json.Unmarshal(m.Data(), &dl); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if job := jobs[dl.Index]; dl.Run != run || job == nil || dl.Digest != job.Digest {
		return nil, fmt.Errorf("not of a job of this run (run %q, index %d, digest %q)", truncate(dl.Run, 64), dl.Index, truncate(dl.Digest, 64))
	}
	return &dl, nil
}

// cleanup removes the run's jobs still queued and, when the run is
// complete, its results and their objects; those of an unfinished run stay
// (7 days) for resuming it. Dead letters stay for reading.
func (s *store) cleanup(run string, complete bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.jobs.Purge(ctx, jetstream.WithPurgeSubject(subjectJobs+run))
	if !complete {
		return
	}
	s.results.Purge(ctx, jetstream.WithPurgeSubject(subjectResults+run))
	lister, err := s.bodies.List(ctx)
	if err != nil {
		return
	}
	for _, o := range lister {
		if strings.HasPrefix(o.Name, run+"/") {
			s.bodies.Delete(ctx, o.Name)
		}
	}
}
