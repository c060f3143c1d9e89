package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/serve"
)

// runGateway is `wasmenv serve --nats URL`: the HTTP routes of serve,
// answered by the workers of a fleet (`wasmenv worker --serve BUNDLE`).
func runGateway(ctx context.Context, cmd *cobra.Command, url string, auth *natsAuth, addr string, callTimeout time.Duration, authorize func(*http.Request) bool) error {
	key, err := auth.key()
	if err != nil {
		return err
	}
	nc, err := auth.connect(url, "wasmenv serve gateway")
	if err != nil {
		return err
	}
	defer nc.Close()
	gw, err := fleet.NewGateway(nc, fleet.GatewayOptions{Timeout: callTimeout + 30*time.Second, FleetKey: key, Authorize: authorize})
	if err != nil {
		return err
	}
	defer gw.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: gw, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second}
	return serveHTTP(ctx, cmd, hs, ln, nil)
}

// statsAuth admits a request to the gateway's /stats with the token or a
// client's of opts, as the workers admit theirs; nil (open) with neither.
func statsAuth(opts serve.Options) func(*http.Request) bool {
	clients := append([]serve.Client(nil), opts.Clients...)
	if opts.Token != "" {
		clients = append(clients, serve.Client{Name: "default", Token: opts.Token})
	}
	if len(clients) == 0 {
		return nil
	}
	return func(r *http.Request) bool {
		_, ok := serve.ClientOf(clients, r)
		return ok
	}
}

// serveWorkerFlags are `wasmenv worker --serve`'s.
type serveWorkerFlags struct {
	bundles     []string
	clients     string
	token       string
	maxEpisodes int
	idle        time.Duration
}

func (f *serveWorkerFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringSliceVar(&f.bundles, "serve", nil, "serve episodes of these bundles to 'wasmenv serve --nats' gateways instead of running rollout jobs (comma-separated or repeated)")
	fl.StringVar(&f.token, "token", "", "with --serve: require this bearer token (default $WASMENV_TOKEN)")
	fl.StringVar(&f.clients, "clients", "", "with --serve: file of clients, one \"NAME TOKEN [MAX_EPISODES]\" a line, as serve's: each client sees only its own episodes, its quota counted on this worker")
	fl.IntVar(&f.maxEpisodes, "max-episodes", 10000, "with --serve: most live episodes on this worker")
	fl.DurationVar(&f.idle, "idle-timeout", 10*time.Minute, "with --serve: close episodes unused this long")
}

// runServeWorker serves episodes of f.bundles over nc until ctx ends.
func runServeWorker(ctx context.Context, cmd *cobra.Command, nc *nats.Conn, f *serveWorkerFlags, key []byte) error {
	if f.token == "" {
		f.token = os.Getenv("WASMENV_TOKEN")
	}
	var envs []*runtime.Env
	defer func() {
		for _, e := range envs {
			e.Close()
		}
	}()
	for _, path := range f.bundles {
		e, err := runtime.Load(ctx, path, runtime.Options{})
		if err != nil {
			return withPath(path, err)
		}
		envs = append(envs, e)
	}
	var clients []serve.Client
	if f.clients != "" {
		var err error
		if clients, err = serve.LoadClients(f.clients); err != nil {
			return err
		}
	}
	id := fleet.NewServeID()
	srv, err := serve.New(envs, serve.Options{
		IDPrefix: id + ".", Token: f.token, Clients: clients, MaxEpisodes: f.maxEpisodes, IdleTimeout: f.idle,
		Logger: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(cmd.ErrOrStderr(), "worker %s serving %d bundle(s)\n", id, len(envs))
	w := &fleet.ServeWorker{NC: nc, ID: id, Handler: srv.Handler(), Episodes: srv.Episodes, Capacity: f.maxEpisodes, FleetKey: key}
	return w.Run(ctx)
}
