package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/internal/loadgen"
	"github.com/wasmenv/wasmenv/runtime"
)

func init() { register(serveBenchCmd) }

func serveBenchCmd() *cobra.Command {
	var o loadgen.Options
	var asJSON, ownProcess bool
	var serverExe, serverProfile string
	cmd := &cobra.Command{
		Use:   "serve-bench [BUNDLE]",
		Short: "Load-test `wasmenv serve` over loopback HTTP and check for leaks",
		Long: "Start a server for BUNDLE on 127.0.0.1 in this process (or use --url), create\n" +
			"--episodes episodes as one group, and have one client worker per episode call\n" +
			"--tool until --calls calls are done or --duration passes: one HTTP request per\n" +
			"call, or with --socket a frame on one of --conns WebSockets at GET /v1/ws (with\n" +
			"--batch, the calls waiting on a connection go as one batch frame). Prints calls/s and\n" +
			"CPU per call (with --server-process, the server's apart from the client's) and\n" +
			"client-side latency percentiles, then deletes the episodes and checks that no\n" +
			"goroutines, file descriptors or episodes leaked. Exit status 1 on a leak or error.",
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var envs []*runtime.Env
			if ownProcess || serverExe != "" {
				if len(args) == 0 || o.URL != "" {
					return fmt.Errorf("--server-process takes a BUNDLE and no --url")
				}
				p, err := startServerProcess(cmd.Context(), serverExe, args[0], o.Episodes, serverProfile, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				defer p.stop()
				o.URL, o.ServerCPU = p.url, p.cpu
			}
			if o.URL == "" {
				if len(args) == 0 {
					return fmt.Errorf("give a BUNDLE, or --url of a running server")
				}
				e, err := runtime.Load(cmd.Context(), args[0], runtime.Options{})
				if err != nil {
					return err
				}
				defer e.Close()
				envs = append(envs, e)
			}
			res, err := loadgen.Run(cmd.Context(), envs, o)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				b, _ := json.MarshalIndent(res, "", "  ")
				fmt.Fprintln(w, string(b))
			} else {
				over := "one HTTP request per call"
				if res.Transport == "socket" {
					over = fmt.Sprintf("%d WebSockets (/v1/ws)", res.Conns)
					if res.Batch && res.Frames > 0 {
						over += fmt.Sprintf(" in batch frames (%.1f calls a frame)", float64(res.Calls)/float64(res.Frames))
					}
				}
				fmt.Fprintf(w, "%d episodes over %s, %d calls in %.2fs: %.0f calls/s, %d errors\n",
					res.Episodes, over, res.Calls, res.Seconds, res.CallsPerSec, res.Errors)
				if o.ServerCPU != nil {
					fmt.Fprintf(w, "CPU of the load generator: %.1fs, %.1f µs per call\n", res.CPUSeconds, res.CPUPerCall)
					fmt.Fprintf(w, "CPU of the server process: %.1fs, %.1f µs per call\n", res.ServerCPUSeconds, res.ServerCPUPerCall)
				} else {
					fmt.Fprintf(w, "CPU (client + server, one process): %.1fs, %.1f µs per call\n", res.CPUSeconds, res.CPUPerCall)
				}
				l := res.Latency
				fmt.Fprintf(w, "latency (client) ms: mean %.3f  p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f\n", l.Mean, l.P50, l.P90, l.P99, l.P999)
				if s := res.Server; s != nil {
					fmt.Fprintf(w, "latency (server, in call) ms: mean %.3f  p50 %.3f  p99 %.3f\n", s.CallLatency.Mean, s.CallLatency.P50, s.CallLatency.P99)
				}
				fmt.Fprintf(w, "after: goroutines %d -> %d, fds %d -> %d, episodes left %d\n",
					res.GoroutinesIn, res.GoroutinesOut, res.FDsIn, res.FDsOut, res.EpisodesLeft)
				for _, l := range res.Leaks {
					fmt.Fprintln(w, "LEAK/ERROR:", l)
				}
			}
			if len(res.Leaks) > 0 || res.Errors > 0 {
				return exitError{1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Episodes, "episodes", 1000, "concurrent episodes (one client worker each)")
	f.Int64Var(&o.Calls, "calls", 1_000_000, "total tool calls")
	f.DurationVar(&o.Duration, "duration", 5*time.Minute, "stop after this long even if calls remain")
	f.StringVar(&o.Tool, "tool", "get", "tool to call")
	f.StringVar(&o.Args, "args", `{"key":"a"}`, "its JSON arguments")
	f.StringVar(&o.Task, "task", "", "task of the episodes")
	f.StringVar(&o.URL, "url", "", "benchmark this running server instead of starting one")
	f.StringVar(&o.Token, "token", "", "bearer token for the server")
	f.BoolVar(&o.Socket, "socket", false, "send the calls over WebSockets (GET /v1/ws, the episodes spread over --conns connections) instead of one HTTP request per call")
	f.IntVar(&o.Conns, "conns", 16, "with --socket: WebSocket connections (at most --episodes)")
	f.BoolVar(&o.Batch, "batch", false, "with --socket: send the calls waiting on a connection at the moment as one batch frame")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.BoolVar(&ownProcess, "server-process", false, "run the server as a process of its own (wasmenv serve) and report its CPU per call apart (Linux)")
	f.StringVar(&serverProfile, "server-cpuprofile", "", "with --server-process: the server's CPU profile, written to this file when it stops (the calls, the episodes' creation and deletion)")
	f.StringVar(&serverExe, "server-exe", "", "with --server-process: the wasmenv executable to serve with (default: this one; an older build compares before and after)")
	return cmd
}
