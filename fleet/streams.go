package fleet

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The names of everything the fleet keeps on JetStream (docs/SCALING.md).
const (
	StreamJobs      = "WASMENV_JOBS"    // work queue: one message per job
	StreamResults   = "WASMENV_RESULTS" // one message per finished job
	StreamDead      = "WASMENV_DEAD"    // jobs given up on, with the reason
	ConsumerWorkers = "workers"         // the pull consumer all workers share
	BucketBundles   = "wasmenv-bundles" // object store: bundles by content hash
	BucketResults   = "wasmenv-results" // object store: result bodies too large for a message
	BucketEnvs      = "wasmenv-envs"    // object store: synthesized environments (tar) by content
)

// Options are the settings of the streams and of the workers' consumer.
type Options struct {
	// Replicas of every stream and bucket the client creates: 1 on one
	// server, 3 on a cluster (a node may then die without losing anything).
	// 0 picks 3 when the server belongs to a cluster of 3 or more nodes,
	// else 1.
	Replicas int
	// AckWait is how long a job may go without an acknowledgement or a
	// heartbeat before it is redelivered. Default 30 s; workers beat every
	// AckWait/3.
	AckWait time.Duration
	// MaxDeliver is how many deliveries a job gets before it goes to the
	// dead-letter stream. Default 5.
	MaxDeliver int
}

func (o Options) withDefaults(nc *nats.Conn) Options {
	if o.Replicas < 1 {
		o.Replicas = 1
		if nc.ConnectedClusterName() != "" && len(nc.Servers()) >= 3 {
			o.Replicas = 3
		}
	}
	if o.AckWait <= 0 {
		o.AckWait = 30 * time.Second
	}
	if o.MaxDeliver < 1 {
		o.MaxDeliver = 5
	}
	return o
}

// store is a run's view of the streams, buckets and consumer.
type store struct {
	js         jetstream.JetStream
	maxPayload int64 // the server's, for object chunks
	opts       Options
	jobs       jetstream.Stream
	results    jetstream.Stream
	dead       jetstream.Stream
	bundles    jetstream.ObjectStore
	bodies     jetstream.ObjectStore
	envs       jetstream.ObjectStore
}

// setup creates the streams and buckets that do not exist yet and uses
// those that do as they are (the driver and every worker call it; the
// first one sets the replicas).
func setup(ctx context.Context, js jetstream.JetStream, o Options) (*store, error) {
	o = o.withDefaults(js.Conn())
	s := &store{js: js, opts: o, maxPayload: js.Conn().MaxPayload()}
	var err error
	s.jobs, err = ensureStream(ctx, js, jetstream.StreamConfig{
		Name: StreamJobs, Subjects: []string{subjectJobs + ">"},
		Retention: jetstream.WorkQueuePolicy, Replicas: o.Replicas,
		Duplicates: 10 * time.Minute, MaxAge: 7 * 24 * time.Hour,
	})
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "stream %s", StreamJobs)
	}
	s.results, err = ensureStream(ctx, js, jetstream.StreamConfig{
		Name: StreamResults, Subjects: []string{subjectResults + ">"},
		Replicas: o.Replicas, Duplicates: 10 * time.Minute, MaxAge: 7 * 24 * time.Hour,
	})
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "stream %s", StreamResults)
	}
	s.dead, err = ensureStream(ctx, js, jetstream.StreamConfig{
		Name: StreamDead, Subjects: []string{subjectDead + ">"},
		Replicas: o.Replicas, Duplicates: 10 * time.Minute, MaxAge: 30 * 24 * time.Hour,
	})
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "stream %s", StreamDead)
	}
	s.bundles, err = ensureBucket(ctx, js, jetstream.ObjectStoreConfig{
		Bucket: BucketBundles, Replicas: o.Replicas, Description: "wasmenv bundles by content hash",
	})
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "object store %s", BucketBundles)
	}
	s.bodies, err = ensureBucket(ctx, js, jetstream.ObjectStoreConfig{
		Bucket: BucketResults, Replicas: o.Replicas, TTL: 7 * 24 * time.Hour,
		Description: "wasmenv job results too large for one message",
	})
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "object store %s", BucketResults)
	}
	s.envs, err = ensureBucket(ctx, js, jetstream.ObjectStoreConfig{
		Bucket: BucketEnvs, Replicas: o.Replicas, TTL: 7 * 24 * time.Hour,
		Description: "wasmenv synthesized environments (tar) by SHA-256",
	})
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "object store %s", BucketEnvs)
	}
	return s, nil
}

// consumer creates or updates the workers' shared pull consumer.
func (s *store) consumer(ctx context.Context) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{
		Durable: ConsumerWorkers, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: s.opts.AckWait, MaxDeliver: s.opts.MaxDeliver,
	}
	var c jetstream.Consumer
	err := retry(ctx, func(ctx context.Context) (err error) {
		c, err = s.jobs.CreateOrUpdateConsumer(ctx, cfg)
		return err
	})
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "consumer %s", ConsumerWorkers)
	}
	return c, nil
}

// ensureStream returns the stream, creating it if it does not exist. On
// a cluster, a stream another client is creating can be briefly "in use"
// and "not found" at once: that is retried.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	var s jetstream.Stream
	err := retry(ctx, func(ctx context.Context) (err error) {
		s, err = js.Stream(ctx, cfg.Name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			s, err = js.CreateStream(ctx, cfg)
			if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				return errAgain
			}
		}
		return err
	})
	return s, err
}

func ensureBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.ObjectStoreConfig) (jetstream.ObjectStore, error) {
	var o jetstream.ObjectStore
	err := retry(ctx, func(ctx context.Context) (err error) {
		o, err = js.ObjectStore(ctx, cfg.Bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			o, err = js.CreateObjectStore(ctx, cfg)
			if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				return errAgain
			}
		}
		return err
	})
	return o, err
}

// errAgain asks retry for another try.
var errAgain = errors.New("try again")

// apiTimeout bounds one JetStream API request. A request or its reply can
// be lost while a cluster elects leaders; without a bound it would wait as
// long as the caller's context.
const apiTimeout = 5 * time.Second

// transient reports an error worth retrying while ctx lives: an API
// request that timed out or found no responder, as while a cluster elects
// its leaders.
func transient(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && (errors.Is(err, errAgain) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse))
}

// retry calls f, each time with apiTimeout, until it succeeds, fails for
// good, or 50 transient failures have passed.
func retry(ctx context.Context, f func(ctx context.Context) error) error {
	for try := 0; ; try++ {
		actx, cancel := context.WithTimeout(ctx, apiTimeout)
		err := f(actx)
		cancel()
		if !transient(ctx, err) || try == 50 {
			return err
		}
		sleep(ctx, time.Duration(min(try+1, 10))*100*time.Millisecond)
	}
}
