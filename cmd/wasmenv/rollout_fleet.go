package main

import (
	"fmt"
	"github.com/wasmenv/wasmenv/internal/progress"
	"os"
	"os/signal"
	"syscall"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// runRolloutFleet is `wasmenv rollout` with --nats (the groups run on the
// workers) or --shard i/n (this process runs its block of the groups). Both
// write the groups in plan order.
func runRolloutFleet(cmd *cobra.Command, args []string, f *rolloutFlags, cfg rl.Config) error {
	spec := &fleet.Spec{
		Group: cfg.Group, Seed: cfg.Seed, MaxTurns: cfg.MaxTurns, MaxTokens: cfg.MaxTokens, Tasks: cfg.Tasks,
		Format: f.format, MetaTools: cfg.MetaTools, StopToken: cfg.StopToken,
		Reward: f.reward, EnvFactory: f.envFactory, Normalize: cfg.Normalize, DropEqual: cfg.DropEqual,
		HistoryWindow: cfg.HistoryWindow,
		Policy: fleet.PolicySpec{Kind: f.policy, BaseURL: f.baseURL, Model: f.model, Temperature: f.temperature,
			TurnTokens: f.turnTokens, Requests: f.requests, Retries: f.retries, Timeout: f.timeout,
			User: f.user, UserURL: f.userURL, UserModel: f.userModel},
	}
	if _, err := spec.Config(); err != nil {
		return err
	}
	if _, err := spec.Policy.Build(); err != nil {
		return err
	}
	if f.runID != "" && f.nats == "" {
		return fmt.Errorf("--run-id names a run on NATS: it needs --nats")
	}
	shard := fleet.Shard{I: 0, N: 1}
	if f.shard != "" {
		if f.nats != "" {
			return fmt.Errorf("--shard splits a run without NATS; with --nats the workers share the groups")
		}
		var err error
		if shard, err = fleet.ParseShard(f.shard); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var files []*fleet.BundleFile
	for _, path := range args {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b, err := fleet.ReadBundle(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		files = append(files, b)
	}
	var decoded []*envpkg.Bundle
	for _, b := range files {
		decoded = append(decoded, b.Bundle)
	}
	refs, err := fleet.Plan(decoded, cfg.Tasks)
	if err != nil {
		return err
	}
	refs = shard.Of(refs)
	exp, abort, err := openRolloutOutput(f.output, cmd.OutOrStdout(), f.inline)
	if err != nil {
		return err
	}
	out := fleet.FromExporter(exp, abort)
	stderr := cmd.ErrOrStderr()
	var bar *progress.Bar
	onProgress := func(done, total int) {}
	if !f.quiet && progress.IsTerminal(stderr) {
		bar = progress.New(stderr, "")
		bar.Note("rollouts")
		onProgress = func(done, total int) { bar.Update(done*cfg.Group, total*cfg.Group) }
	}
	var sum *rl.Summary
	if f.nats != "" {
		nc, cerr := nats.Connect(f.nats, nats.Name("wasmenv rollout"), nats.MaxReconnects(-1))
		if cerr != nil {
			out.Abort()
			return fmt.Errorf("connect %s: %w", f.nats, cerr)
		}
		defer nc.Close()
		d := &fleet.Driver{NC: nc, Progress: onProgress, RunID: f.runID}
		if d.RunID == "" {
			d.RunID = fleet.NewRunID()
		}
		fmt.Fprintf(stderr, "run %s (if it stops, --run-id %s resumes it)\n", d.RunID, d.RunID)
		sum, err = d.Run(ctx, files, spec, refs, out)
	} else {
		envs := map[string]*runtime.Env{}
		defer func() {
			for _, e := range envs {
				e.Close()
			}
		}()
		for _, b := range files {
			if envs[b.Bundle.Hash] != nil {
				continue
			}
			e, lerr := runtime.LoadBundle(ctx, b.Bundle, runtime.Options{})
			if lerr != nil {
				out.Abort()
				return lerr
			}
			envs[b.Bundle.Hash] = e
		}
		sum, err = fleet.RunLocal(ctx, envs, spec, refs, max(1, cfg.Concurrency/cfg.Group), out, onProgress)
	}
	bar.Done() // nil-safe
	if err != nil {
		out.Abort()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return reportRollouts(stderr, sum, f)
}
