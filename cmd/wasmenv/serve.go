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
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/serve"
)

func init() { register(serveCmd) }

func serveCmd() *cobra.Command {
	var addr, token string
	var opts serve.Options
	cmd := &cobra.Command{
		Use:   "serve BUNDLE...",
		Short: "Serve episodes of bundles over HTTP, MCP and OpenEnv-compatible APIs",
		Long: "Serve many isolated episodes of one or more bundles in this process.\n\n" +
			"Episode API under /v1 (JSON), MCP (streamable HTTP) at /v1/episodes/{id}/mcp,\n" +
			"OpenEnv-compatible /reset, /step, /state, /schema and /ws, plus /health and /stats.\n" +
			"See docs/SERVING.md. The token may also come from $WASMENV_TOKEN.\n" +
			"Once listening, the first line on stdout is \"listening on http://HOST:PORT\".",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if token == "" {
				token = os.Getenv("WASMENV_TOKEN")
			}
			opts.Token = token
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			opts.Logger = log
			var envs []*runtime.Env
			defer func() {
				for _, e := range envs {
					e.Close()
				}
			}()
			for _, path := range args {
				e, err := runtime.Load(ctx, path, runtime.Options{Log: func(env, line string) {
					log.Info("guest", "env", env, "line", line)
				}})
				if err != nil {
					return withPath(path, err)
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
			hs := &http.Server{
				Handler:           srv,
				ReadHeaderTimeout: 10 * time.Second,
				IdleTimeout:       2 * time.Minute,
				MaxHeaderBytes:    64 << 10,
				ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
			}
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
			// Shutdown waits for requests in flight; then Close ends the
			// WebSocket sessions (hijacked, so Shutdown skips them) and
			// closes every episode.
			err = hs.Shutdown(sctx)
			srv.Close()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "listen address (port 0 picks a free port)")
	f.IntVar(&opts.MaxEpisodes, "max-episodes", 10000, "most live episodes; more creates get 429")
	f.StringVar(&token, "token", "", "require this bearer token (all routes but /health)")
	f.DurationVar(&opts.IdleTimeout, "idle-timeout", 10*time.Minute, "close episodes unused this long (negative: never)")
	f.IntVar(&opts.MaxSteps, "max-steps", 0, "default step limit of an episode on /step (0: none)")
	f.DurationVar(&opts.CallTimeout, "call-timeout", 30*time.Second, "bound on one request's wait plus its call")
	f.Int64Var(&opts.MaxBodyBytes, "max-body", 2<<20, "largest request body in bytes")
	return cmd
}
