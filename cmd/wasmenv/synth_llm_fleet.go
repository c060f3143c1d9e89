package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/synth/llm"
)

// synthLLMFleetFlags are `synth llm`'s flags for running its scenarios on
// a fleet.
type synthLLMFleetFlags struct {
	nats, runID string
	quiet       bool
	auth        natsAuth
}

func (f *synthLLMFleetFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.nats, "nats", "", "one job per scenario on the workers of this NATS server; each worker reaches it only if its --allow-endpoint lists it, with the key its own --api-key-env names (docs/SCALING.md)")
	fl.StringVar(&f.runID, "run-id", "", "with --nats: name the run; the id of a run that failed or was cancelled resumes it")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "with --nats: no progress bar")
	f.auth.add(cmd)
}

// runSynthLLM is llm.Run, or with --nats: the scenarios are planned here
// (llm.Plan), each runs on a worker (fleet.PlanSynthLLM), and its
// output is written into OUTDIR where llm.Run writes it, then the batch
// report over all of them.
func runSynthLLM(cmd *cobra.Command, cfg llm.Config, concurrency int, f *synthLLMFleetFlags) (*llm.BatchReport, error) {
	if f.nats == "" {
		return llm.Run(cmd.Context(), cfg)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	scenarios, rep, err := llm.Plan(ctx, cfg)
	if err != nil {
		return rep, err
	}
	refs, specs, err := fleet.PlanSynthLLM(cfg, scenarios)
	if err != nil {
		return nil, err
	}
	for _, s := range specs {
		s.Concurrency = concurrency // each worker's requests in flight for this scenario
	}
	key, err := f.auth.key()
	if err != nil {
		return nil, err
	}
	nc, err := f.auth.connect(f.nats, "wasmenv synth llm")
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	stderr := cmd.ErrOrStderr()
	d := &fleet.Driver{NC: nc, RunID: f.runID, FleetKey: key}
	if d.RunID == "" {
		d.RunID = fleet.NewRunID()
	}
	bar, onProgress := fleetProgress(stderr, f.quiet, "scenarios", 1)
	d.Progress = onProgress
	fmt.Fprintf(stderr, "run %s: %d scenarios (if it stops, --run-id %s resumes it)\n", d.RunID, len(scenarios), d.RunID)
	out := fleet.CreateSynthLLMOutput(cfg.OutDir, refs)
	err = d.RunSynthLLM(ctx, specs, refs, out)
	bar.Done()
	if err != nil {
		return nil, err
	}
	return rep, rep.Finish(cfg.OutDir, out.Reports)
}
