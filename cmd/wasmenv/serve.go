package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/serve"
)

func init() { register(serveCmd) }

func serveCmd() *cobra.Command {
	var addr, token, clientsFile, natsURL, cpuProfile string
	var gwAuth natsAuth
	var opts serve.Options
	var ropts runtime.Options
	var user fleet.PolicySpec
	cmd := &cobra.Command{
		Use:   "serve BUNDLE... | serve --nats URL",
		Short: "Serve episodes of bundles over HTTP, MCP and OpenEnv-compatible APIs",
		Long: "Serve many isolated episodes of one or more bundles in this process.\n\n" +
			"Episode API under /v1 (JSON), MCP (streamable HTTP) at /v1/episodes/{id}/mcp,\n" +
			"OpenEnv-compatible /reset, /step, /state, /schema and /ws, plus /health and /stats.\n" +
			"See docs/SERVING.md. The token may also come from $WASMENV_TOKEN.\n" +
			"Once listening, the first line on stdout is \"listening on http://HOST:PORT\".\n\n" +
			"With --nats URL and no bundles it is a gateway: the same routes (WebSockets excepted),\n" +
			"answered by `wasmenv worker --nats URL --serve BUNDLE...` processes (docs/SCALING.md).",
		Args: func(cmd *cobra.Command, args []string) error {
			if natsURL != "" {
				if len(args) > 0 {
					return errors.New("with --nats the workers serve the bundles (wasmenv worker --serve BUNDLE); give none here")
				}
				return nil
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if token == "" {
				token = os.Getenv("WASMENV_TOKEN")
			}
			opts.Token = token
			if clientsFile != "" {
				clients, err := serve.LoadClients(clientsFile)
				if err != nil {
					return err
				}
				opts.Clients = clients
			}
			if natsURL != "" {
				return runGateway(ctx, cmd, natsURL, &gwAuth, addr, opts.CallTimeout, statsAuth(opts))
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			opts.Logger = log
			if opts.User, err = user.BuildUser(); err != nil {
				return localFlagError(err)
			}
			guestLog := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelInfo}))
			var envs []*runtime.Env
			defer func() {
				for _, e := range envs {
					e.Close()
				}
			}()
			for _, path := range args {
				// Guest lines (sdk.Log, at most 64 KiB per call) go to stderr
				// whatever the server's own log level.
				ropts.Log = func(env, line string) { guestLog.Info("guest", "env", env, "line", line) }
				e, err := runtime.Load(ctx, path, ropts)
				if err != nil {
					return withPath(path, err)
				}
				if !e.HistoryIsolated() {
					log.Warn("bundle built before the guest patches: map order and printed addresses may follow what ran before on an instance; rebuild it", "bundle", path)
				}
				envs = append(envs, e)
			}
			srv, err := serve.New(envs, opts)
			if err != nil {
				return err
			}
			defer srv.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			if cpuProfile != "" {
				stopProfile, err := startCPUProfile(cpuProfile)
				if err != nil {
					return err
				}
				defer stopProfile()
			}
			// After the HTTP shutdown (requests in flight), Close ends the
			// WebSocket sessions (hijacked, so Shutdown skips them) and
			// closes every episode.
			return serveHTTP(ctx, cmd, srv.HTTPServer(), ln, func() { srv.Close() })
		},
	}
	f := cmd.Flags()
	f.StringVar(&natsURL, "nats", "", "be a gateway: forward every request over this NATS URL to 'wasmenv worker --serve' workers (docs/SCALING.md)")
	gwAuth.add(cmd)
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the serving (from listening to shutdown) to this file (go tool pprof)")
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "listen address (port 0 picks a free port)")
	f.IntVar(&opts.MaxEpisodes, "max-episodes", 10000, "most live episodes; more creates get 429")
	f.StringVar(&token, "token", "", "require this bearer token (all routes but /health; with --nats: the gateway's /stats)")
	f.StringVar(&clientsFile, "clients", "", "file of clients, one \"NAME TOKEN [MAX_EPISODES]\" a line: each client sees only its own episodes (with --nats: their tokens admit to the gateway's /stats)")
	f.DurationVar(&opts.IdleTimeout, "idle-timeout", 10*time.Minute, "close episodes unused this long (negative: never)")
	f.IntVar(&opts.MaxSteps, "max-steps", 0, "default step limit of an episode on /step (0: none)")
	f.DurationVar(&opts.CallTimeout, "call-timeout", 30*time.Second, "bound on one request's wait plus its call")
	f.Int64Var(&opts.MaxBodyBytes, "max-body", 2<<20, "largest request body in bytes")
	f.DurationVar(&opts.ReadTimeout, "read-timeout", 30*time.Second, "bound on reading one request, body included")
	f.DurationVar(&opts.WSIdleTimeout, "ws-idle-timeout", 5*time.Minute, "close a WebSocket with no message for this long")
	f.IntVar(&opts.MaxWebSockets, "max-websockets", 256, "most open WebSocket sessions")
	f.DurationVar(&ropts.MaxCallTimeout, "max-call-timeout", 0, "cap on a bundle's call_timeout (0: the bundle's, at most 10m)")
	f.IntVar(&ropts.MaxMemoryMB, "max-memory-mb", 0, "cap on a bundle's memory_mb (0: the bundle's, at most 4096)")
	f.IntVar(&ropts.MaxOutputBytes, "max-output-bytes", 0, "cap on a bundle's max_output_bytes (0: the bundle's, at most 64 MiB)")
	f.IntVar(&ropts.SQLMemoryMB, "sql-memory-mb", 256, "SQLite heap per episode in MiB")
	f.IntVar(&ropts.MaxWriteMB, "max-write-mb", 256, "write budget of an episode in MiB, and the cap on a bundle's max_write_mb")
	f.Int64Var(&opts.MaxMemoryBytes, "max-memory", 0, "refuse new episodes (429) while resident memory is over this many bytes (0: no cap)")
	f.StringVar(&user.User, "user", "none", "simulated user, as in 'wasmenv rollout --user': none (the task's instruction opens), scripted (says the instruction, then stops) or openai; with a user the agent talks to it with \"message\" steps and never sees the instruction")
	f.StringVar(&user.UserURL, "user-base-url", "", "user openai: server URL, e.g. http://127.0.0.1:8000/v1")
	f.StringVar(&user.UserModel, "user-model", "", "user openai: model")
	f.Float64Var(&user.Temperature, "user-temperature", 1, "user openai: sampling temperature")
	f.StringVar(&opts.StopToken, "stop-token", rl.DefaultStopToken, "the user's end-of-conversation token")
	f.StringVar(&opts.NeMoGymRoot, "nemo-gym-root", "", "also serve this environment's NeMo Gym routes at the root (POST /seed_session, /verify, /TOOL; /reset, /step, /close for gymnasium_agent)")
	f.BoolVar(&ropts.PartialCredit, "partial-credit", false, "score by the fraction of checks passed also the environments whose origin gives all or nothing (credit: all, the τ-bench ports)")
	f.DurationVar(&ropts.SQLTimeout, "sql-timeout", 10*time.Second, "bound on each piece of bundle SQL outside tool calls (setup, checks, diffs)")
	return cmd
}

// serveHTTP serves hs on ln until ctx is done, then shuts it down (waiting
// up to 10 s for requests in flight) and calls after; a server that stops
// on its own returns its error. wasmenv serve and its gateway mode share it.
func serveHTTP(ctx context.Context, cmd *cobra.Command, hs *http.Server, ln net.Listener, after func()) error {
	fmt.Fprintf(cmd.OutOrStdout(), "listening on http://%s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "wasmenv serve: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if after != nil {
		after()
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// startCPUProfile profiles this process into path until the returned stop.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
