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

	subjectJobs    = "wasmenv.jobs."
	subjectResults = "wasmenv.results."
	subjectDead    = "wasmenv.dead."
)

// Options are the settings of the streams and of the workers' consumer.
type Options struct {
	// Replicas of every stream and bucket: 1 on one server, 3 on a 3-node
	// cluster (a node may then die without losing anything). Default 1.
	Replicas int
	// AckWait is how long a job may go without an acknowledgement or a
	// heartbeat before it is redelivered. Default 30 s; workers beat every
	// AckWait/3.
	AckWait time.Duration
	// MaxDeliver is how many deliveries a job gets before it goes to the
	// dead-letter stream. Default 5.
	MaxDeliver int
}

func (o Options) withDefaults() Options {
	if o.Replicas < 1 {
		o.Replicas = 1
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
}

// setup creates the streams and buckets that do not exist yet and uses
// those that do as they are (the driver and every worker call it; the
// first one sets the replicas).
func setup(ctx context.Context, js jetstream.JetStream, o Options) (*store, error) {
	o = o.withDefaults()
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
	return s, nil
}

// consumer creates or updates the workers' shared pull consumer.
func (s *store) consumer(ctx context.Context) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{
		Durable: ConsumerWorkers, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: s.opts.AckWait, MaxDeliver: s.opts.MaxDeliver,
	}
	c, err := s.jobs.CreateOrUpdateConsumer(ctx, cfg)
	for try := 0; transient(ctx, err) && try < 50; try++ {
		sleep(ctx, 100*time.Millisecond)
		c, err = s.jobs.CreateOrUpdateConsumer(ctx, cfg)
	}
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "consumer %s", ConsumerWorkers)
	}
	return c, nil
}

// ensureStream returns the stream, creating it if it does not exist. On
// a cluster, a stream another client is creating can be briefly "in use"
// and "not found" at once: that is retried.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	for try := 0; ; try++ {
		s, err := js.Stream(ctx, cfg.Name)
		if transient(ctx, err) && try < 50 {
			sleep(ctx, 100*time.Millisecond)
			continue
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return s, err
		}
		s, err = js.CreateStream(ctx, cfg)
		if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) && !transient(ctx, err) || try == 50 {
			return s, err
		}
		sleep(ctx, 100*time.Millisecond)
	}
}

func ensureBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.ObjectStoreConfig) (jetstream.ObjectStore, error) {
	for try := 0; ; try++ {
		o, err := js.ObjectStore(ctx, cfg.Bucket)
		if transient(ctx, err) && try < 50 {
			sleep(ctx, 100*time.Millisecond)
			continue
		}
		if !errors.Is(err, jetstream.ErrBucketNotFound) {
			return o, err
		}
		o, err = js.CreateObjectStore(ctx, cfg)
		if !errors.Is(err, jetstream.ErrBucketExists) && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) && !transient(ctx, err) || try == 50 {
			return o, err
		}
		sleep(ctx, 100*time.Millisecond)
	}
}

// transient reports an error worth retrying while ctx lives: an API
// request that timed out or found no responder, as while a cluster elects
// its leaders.
func transient(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse))
}
