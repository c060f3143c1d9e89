package main

import (
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/runtime"
)

func init() { register(workerCmd) }

func workerCmd() *cobra.Command {
	var (
		url, cache string
		quiet      bool
		w          fleet.Worker
		sf         serveWorkerFlags
		auth       natsAuth
	)
	cmd := &cobra.Command{
		Use:   "worker --nats URL",
		Short: "Join a fleet: pull rollout jobs from NATS JetStream and run them (docs/SCALING.md)",
		Long: "Pull jobs (rollout groups) from the JetStream work queue at --nats, run each as\n" +
			"`wasmenv rollout` would, store its result and only then acknowledge it. Bundles come\n" +
			"from the object store by content hash, verified, and are cached in --cache. SIGTERM or\n" +
			"Ctrl-C gives running jobs back to the queue. With --serve BUNDLE,... it serves episodes\n" +
			"of those bundles to `wasmenv serve --nats` gateways instead. See docs/SCALING.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if url == "" {
				return fmt.Errorf("--nats is required (e.g. nats://127.0.0.1:4222; start one with wasmenv cluster)")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			key, err := auth.key()
			if err != nil {
				return err
			}
			nc, err := auth.connect(url, "wasmenv worker")
			if err != nil {
				return err
			}
			defer nc.Close()
			if len(sf.bundles) > 0 {
				return runServeWorker(ctx, cmd, nc, &sf, key)
			}
			if err := fleet.CheckEndpoints(w.Endpoints.Allow); err != nil {
				return err
			}
			w.NC, w.CacheDir, w.FleetKey = nc, cache, key
			w.Runtime = runtime.Options{}
			if !quiet {
				l := log.New(cmd.ErrOrStderr(), "worker ", log.LstdFlags)
				w.Log = l.Printf
			}
			return w.Run(ctx)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&url, "nats", "", "NATS server URL(s), comma-separated")
	fl.IntVar(&w.Slots, "jobs", 2, "jobs (groups) run at once")
	fl.IntVar(&w.Options.Replicas, "replicas", 0, "replicas of the streams and buckets if this worker creates them (0: 3 on a cluster of 3 or more nodes, else 1)")
	fl.DurationVar(&w.Options.AckWait, "ack-wait", 30*time.Second, "redeliver a job after this long without a heartbeat")
	fl.IntVar(&w.Options.MaxDeliver, "max-deliver", 5, "deliveries before a job goes to the dead-letter stream")
	fl.StringVar(&cache, "cache", filepath.Join(defaultCacheDir(), "bundles"), "directory of fetched bundles (\"\": none)")
	fl.IntVar(&w.MaxEnvs, "max-envs", 16, "loaded bundles kept in memory (the least recently used idle one is closed past that)")
	fl.StringSliceVar(&w.Endpoints.Allow, "allow-endpoint", nil, "model endpoints (base URLs, e.g. https://api.openai.com/v1) jobs may reach; a job naming any other fails here (comma-separated or repeated; none: jobs reach no model)")
	fl.StringVar(&w.Endpoints.KeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable whose value this worker sends as the bearer token to an allowed endpoint (\"\": none); a job never names it")
	fl.StringVar(&w.Name, "name", "", "worker name in dead letters (default host:pid)")
	sf.add(cmd)
	auth.add(cmd)
	fl.BoolVarP(&quiet, "quiet", "q", false, "no log lines")
	return cmd
}

// defaultCacheDir is wasmenv's cache: $WASMENV_CACHE, else the user cache dir.
func defaultCacheDir() string {
	if d := os.Getenv("WASMENV_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "wasmenv")
	}
	return filepath.Join(os.TempDir(), "wasmenv")
}
