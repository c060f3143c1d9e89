package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/internal/progress"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// runRolloutFleet is `wasmenv rollout` with --nats (the groups run on the
// workers) or --shard i/n (this process runs its block of the groups). Both
// write the groups in plan order.
func runRolloutFleet(cmd *cobra.Command, args []string, f *rolloutFlags, cfg rl.Config) error {
	spec := f.fleetSpec(cfg)
	if err := checkFleetFlags(f, spec); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	files, decoded, err := readBundleFiles(args)
	if err != nil {
		return err
	}
	refs, err := fleet.Plan(decoded, cfg.Tasks)
	if err != nil {
		return err
	}
	out, err := fleet.CreateOutput(f.output, cmd.OutOrStdout(), f.inline)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	bar, onProgress := fleetProgress(stderr, f.quiet, "rollouts", cfg.Group)
	sum, err := runJobs(ctx, stderr, f, files, spec, refs, max(1, cfg.Concurrency/cfg.Group), out, onProgress)
	bar.Done() // nil-safe
	if err != nil {
		return err
	}
	return reportRollouts(stderr, sum, f)
}

// checkFleetFlags checks the settings and --nats, --shard and --run-id
// before anything runs: a bad flag is the same error as locally.
func checkFleetFlags(f *rolloutFlags, spec *fleet.Spec) error {
	if _, err := spec.Config(); err != nil {
		return err
	}
	if _, err := spec.Policy.Build(); err != nil {
		return err
	}
	if f.runID != "" && f.nats == "" {
		return fmt.Errorf("--run-id names a run on NATS: it needs --nats")
	}
	if f.shard != "" && f.nats != "" {
		return fmt.Errorf("--shard splits a run without NATS; with --nats the workers share the jobs")
	}
	if f.shard != "" {
		_, err := fleet.ParseShard(f.shard)
		return err
	}
	return nil
}

// readBundleFiles reads and verifies bundle files.
func readBundleFiles(paths []string) ([]*fleet.BundleFile, []*envpkg.Bundle, error) {
	var files []*fleet.BundleFile
	var decoded []*envpkg.Bundle
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		b, err := fleet.ReadBundle(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		files = append(files, b)
		decoded = append(decoded, b.Bundle)
	}
	return files, decoded, nil
}

// fleetProgress draws a progress bar of jobs of size units each, on a
// terminal unless quiet.
func fleetProgress(stderr io.Writer, quiet bool, note string, size int) (*progress.Bar, func(done, total int)) {
	if quiet || !progress.IsTerminal(stderr) {
		return nil, func(done, total int) {}
	}
	bar := progress.New(stderr, "")
	bar.Note("%s", note)
	return bar, func(done, total int) { bar.Update(done*size, total*size) }
}

// runJobs runs refs on the workers of --nats, or this process's block of
// them (--shard, default 0/1) parallel at a time, and writes them to out
// in plan order; out is closed, or aborted on an error.
func runJobs(ctx context.Context, stderr io.Writer, f *rolloutFlags, files []*fleet.BundleFile, spec *fleet.Spec, refs []fleet.GroupRef, parallel int, out fleet.Output, onProgress func(done, total int)) (*rl.Summary, error) {
	sum, err := runJobsOpen(ctx, stderr, f, files, spec, refs, parallel, out, onProgress)
	if err != nil {
		out.Abort()
		return nil, err
	}
	return sum, out.Close()
}

func runJobsOpen(ctx context.Context, stderr io.Writer, f *rolloutFlags, files []*fleet.BundleFile, spec *fleet.Spec, refs []fleet.GroupRef, parallel int, out fleet.Output, onProgress func(done, total int)) (*rl.Summary, error) {
	if f.nats != "" {
		key, err := f.natsAuth.key()
		if err != nil {
			return nil, err
		}
		nc, err := f.natsAuth.connect(f.nats, "wasmenv driver")
		if err != nil {
			return nil, err
		}
		defer nc.Close()
		d := &fleet.Driver{NC: nc, Progress: onProgress, RunID: f.runID, FleetKey: key}
		if d.RunID == "" {
			d.RunID = fleet.NewRunID()
		}
		fmt.Fprintf(stderr, "run %s (if it stops, --run-id %s resumes it)\n", d.RunID, d.RunID)
		return d.Run(ctx, files, spec, refs, out)
	}
	if f.shard != "" {
		shard, err := fleet.ParseShard(f.shard)
		if err != nil {
			return nil, err
		}
		refs = shard.Of(refs)
	}
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
		e, err := runtime.LoadBundle(ctx, b.Bundle, runtime.Options{})
		if err != nil {
			return nil, err
		}
		envs[b.Bundle.Hash] = e
	}
	return fleet.RunLocal(ctx, envs, spec, refs, parallel, out, onProgress)
}
