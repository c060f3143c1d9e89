// Package fleet runs rollouts past one machine on NATS JetStream, and
// splits them deterministically without it.
//
// A run is planned as an ordered list of groups (one GRPO group: a task of
// a bundle, a seed, G rollouts), exactly as rl.Run plans it. Each group is
// a job. Every job, wherever it runs, is one call of rl.Run restricted to
// its task, so a worker runs the very code of the local engine; its JSONL
// lines come back keyed by the job's index and the driver writes them in
// plan order. The output of `wasmenv rollout --nats` is therefore the same
// bytes as a local run that writes its groups in plan order (one group at a
// time, or `--shard 0/1`), whatever the number of workers or deliveries.
//
// On NATS (docs/SCALING.md):
//
//   - jobs go to the work-queue stream WASMENV_JOBS (subject
//     wasmenv.jobs.<run>), published with Nats-Msg-Id <run>.<index>; workers
//     share the durable pull consumer "workers": a job is acknowledged only
//     after its result is stored, heartbeats (in-progress acks) keep a long
//     job, a dead or stalled worker's job is redelivered after AckWait;
//   - results go to the stream WASMENV_RESULTS (subject
//     wasmenv.results.<run>) with Nats-Msg-Id <run>.<index>, their bodies in
//     the object store wasmenv-results when larger than a message may be;
//   - a job that failed MaxDeliver times, or cannot be read at all, goes to
//     the stream WASMENV_DEAD (wasmenv.dead.<run>) with its reason;
//   - bundles travel through the object store wasmenv-bundles named by their
//     content hash; a worker verifies one as envpkg verifies a file and
//     caches it once.
//
// Evaluations and synthesis batches are jobs on the same queue. An
// evaluation's job (Spec.Eval) is a chunk of tasks of one bundle, run as a
// group is, whose lines are one EvalRecord per task; the output ends with
// an EvalSummary computed from the records alone (eval.go,
// eval_output.go). A synthesis job (Job.Synth) is synth.FromDB over one
// SQLite database fetched from the object store by its SHA-256; its result
// is the environment directory as a deterministic tar in the object store
// wasmenv-envs, keyed by the tar's SHA-256, unpacked whole by the driver
// (synth.go, tar.go). An LLM synthesis job (Job.SynthLLM) is one scenario
// of synth/llm run with llm.RunScenario against the endpoint the job names;
// its result is the output directory the scenario wrote, as a tar, which
// the driver checks entry by entry and moves where llm.Run writes it
// (synth_llm.go, synth_llm_output.go).
//
// Episodes are served by a fleet too (gateway.go, serve_worker.go): a
// Gateway is an http.Handler that forwards each request of serve's routes
// over core NATS request/reply to a ServeWorker, which answers it with an
// in-process serve.Server. Creates go to the least loaded worker, calls to
// the worker named in the episode id (ep_<worker>.<random>); an episode
// whose worker is gone answers 410 episode_lost. WebSockets (GET /ws, GET
// /mcp) are placed as creates and relayed frame by frame to a session the
// worker opens on its own handler; a worker gone closes the client's
// socket with CloseEpisodeLost (gateway_socket.go, serve_socket.go).
//
// The fleet trusts nothing on the bus (docs/SCALING.md, "Securing the
// fleet"). A job has a kind (JobKind: rollout, eval, synth, synth-llm) and
// a digest the driver stamps and the worker echoes; a driver takes a
// result or dead letter only for one of its own jobs, and with a fleet key
// only one signed by a worker (wire.go). A worker reaches only the model
// endpoints of its own configuration, with its own key (endpoints.go). A
// gateway places episodes only on workers that sign their heartbeats and
// answers, and seals clients' credentials across NATS (serve_auth.go).
//
// Without NATS, Shard splits the same plan into contiguous blocks, so
// concatenating the outputs of shards 0..n-1 gives the whole run's output.
package fleet
