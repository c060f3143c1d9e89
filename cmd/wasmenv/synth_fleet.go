package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/synth"
)

// synthFleetFlags are `synth from-db`'s flags for a batch of databases.
type synthFleetFlags struct {
	nats, runID string
	auth        natsAuth
	jobs        int
	quiet       bool
}

func (f *synthFleetFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.nats, "nats", "", "batch: one job per database on the workers of this NATS server (docs/SCALING.md)")
	f.auth.add(cmd)
	fl.StringVar(&f.runID, "run-id", "", "with --nats: name the run; the id of a run that failed or was cancelled resumes it")
	fl.IntVar(&f.jobs, "jobs", 1, "batch without --nats: databases synthesized at once")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "batch: no progress bar")
}

// runSynthBatch is `synth from-db` over several SQLite databases, or with
// --nats: each database is one job (fleet.PlanSynth), run in this process
// or on the workers, and its environment is written to OUTDIR/<name>.
func runSynthBatch(cmd *cobra.Command, args []string, opts synth.Options, writeShare float64, llmModel string, f *synthFleetFlags) error {
	switch {
	case opts.Bundle != "":
		return fmt.Errorf("--bundle names one bundle: a batch writes environment directories (build them with wasmenv build)")
	case llmModel != "":
		return fmt.Errorf("--llm is for one database at a time: a batch does not rewrite instructions")
	case f.runID != "" && f.nats == "":
		return fmt.Errorf("--run-id names a run on NATS: it needs --nats")
	case f.jobs < 1:
		return fmt.Errorf("--jobs must be at least 1")
	}
	var sources []*fleet.SynthSource
	for _, path := range args {
		src, err := fleet.ReadSynthSource(path)
		if err != nil {
			return err
		}
		sources = append(sources, src)
	}
	refs, specs, err := fleet.PlanSynth(sources, fleet.SynthSpec{Name: opts.Name, Tasks: opts.Tasks, Seed: opts.Seed,
		MaxChain: opts.MaxChain, WriteShare: &writeShare, ReadOnly: opts.ReadOnly, Toolset: opts.Toolset, MaxRows: opts.MaxRows, StateReward: opts.StateReward})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stderr := cmd.ErrOrStderr()
	out, err := fleet.CreateSynthOutput(opts.Out, refs)
	if err != nil {
		return err
	}
	bar, onProgress := fleetProgress(stderr, f.quiet, "databases", 1)
	if f.nats != "" {
		key, kerr := f.auth.key()
		if kerr != nil {
			return kerr
		}
		nc, cerr := f.auth.connect(f.nats, "wasmenv synth")
		if cerr != nil {
			return cerr
		}
		defer nc.Close()
		d := &fleet.Driver{NC: nc, Progress: onProgress, RunID: f.runID, FleetKey: key}
		if d.RunID == "" {
			d.RunID = fleet.NewRunID()
		}
		fmt.Fprintf(stderr, "run %s (if it stops, --run-id %s resumes it)\n", d.RunID, d.RunID)
		err = d.RunSynth(ctx, sources, specs, refs, out)
	} else {
		err = fleet.RunSynthLocal(ctx, sources, specs, refs, f.jobs, out, onProgress)
	}
	bar.Done()
	if err != nil {
		out.Abort()
		return err
	}
	for _, r := range refs {
		fmt.Fprintf(cmd.OutOrStdout(), "wrote %s/%s (from %s)\n", opts.Out, r.Env, sources[r.Index].File)
	}
	return nil
}
