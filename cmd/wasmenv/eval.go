package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/rl"
)

func init() { register(evalCmd) }

func evalCmd() *cobra.Command {
	var (
		f     rolloutFlags
		cfg   rl.Config
		chunk int
	)
	cmd := &cobra.Command{
		Use:   "eval BUNDLE... --tasks GLOB --policy random|oracle|openai -o results.jsonl",
		Short: "Evaluate a policy on a task set: every task × --samples, success per task and a summary (JSONL)",
		Long: "Run every task (matching --tasks) of every bundle --samples times with a policy and\n" +
			"write one line per task (samples, successes, success rate, mean reward, each sample's\n" +
			"reward and finish) in plan order, then a summary line (success rate, pass@k with k =\n" +
			"--samples, mean reward, per environment). Sample i runs on seed --seed + i, as in\n" +
			"`wasmenv rollout`. With --nats the tasks go to the workers in chunks of --chunk; with\n" +
			"--shard i/n this process runs its block of the chunks. For the random and oracle\n" +
			"policies the file is the same bytes wherever it runs. See docs/SCALING.md.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEval(cmd, args, &f, cfg, chunk)
		},
	}
	fl := cmd.Flags()
	f.addPolicyFlags(cmd, &cfg)
	fl.IntVar(&cfg.Group, "samples", 4, "rollouts per task (sample i on seed --seed + i)")
	fl.StringVar(&cfg.Tasks, "tasks", "", "comma-separated globs over task ids, e.g. 'cancel-*' (default all; synth from-db's --tasks is a count)")
	fl.Int64Var(&cfg.Seed, "seed", 0, "base seed")
	fl.IntVar(&cfg.MaxTurns, "max-turns", 20, "assistant turns per rollout")
	fl.IntVar(&cfg.MaxTokens, "max-tokens", 0, "completion tokens per rollout (0: no budget)")
	fl.IntVar(&cfg.Concurrency, "concurrency", 256, "without --nats: rollouts in flight at once")
	fl.IntVar(&chunk, "chunk", 8, "tasks per job")
	fl.StringVarP(&f.output, "output", "o", "", "output file (.jsonl), or - for stdout")
	fl.BoolVar(&f.allTasks, "summary-tasks", false, "print every task's row in the summary (default: the 10 worst)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar (it is drawn only on a terminal anyway)")
	fl.StringVar(&f.nats, "nats", "", "run the chunks on the workers of this NATS server (docs/SCALING.md)")
	f.natsAuth.add(cmd)
	fl.StringVar(&f.shard, "shard", "", "run only block i of n of the chunks, in plan order (i/n)")
	fl.StringVar(&f.runID, "run-id", "", "with --nats: name the run; the id of a run that failed or was cancelled resumes it")
	return cmd
}

func runEval(cmd *cobra.Command, args []string, f *rolloutFlags, cfg rl.Config, chunk int) error {
	if f.output == "" {
		return fmt.Errorf("-o is required (a .jsonl file, or - for stdout)")
	}
	if cfg.Group < 1 || cfg.MaxTurns < 1 || cfg.Concurrency < 1 {
		return fmt.Errorf("--samples, --max-turns and --concurrency must be at least 1")
	}
	spec := f.fleetSpec(cfg)
	spec.Eval = true
	if err := checkFleetFlags(f, spec); err != nil {
		return localFlagError(err)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	files, decoded, err := readBundleFiles(args)
	if err != nil {
		return err
	}
	refs, err := fleet.PlanEval(decoded, cfg.Tasks, chunk)
	if err != nil {
		return err
	}
	out, err := fleet.CreateEvalOutput(f.output, cmd.OutOrStdout())
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	bar, onProgress := fleetProgress(stderr, f.quiet, "chunks", 1)
	sum, err := runJobs(ctx, stderr, f, files, spec, refs, max(1, cfg.Concurrency/(cfg.Group*chunk)), out, onProgress)
	bar.Done()
	if err != nil {
		return err
	}
	return reportRollouts(stderr, sum, f)
}
