package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
	"github.com/wasmenv/wasmenv/internal/progress"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

func init() { register(rolloutCmd) }

// rolloutFlags are the command's flags beyond rl.Config.
type rolloutFlags struct {
	policy, reward, format, output, summary string
	normalize, quiet, inline, allTasks      bool
	envFactory                              rl.EnvFactory

	baseURL, model           string
	temperature              float64
	turnTokens, requests     int
	retries                  int
	timeout                  time.Duration
	user, userURL, userModel string
	nats, shard, runID       string // rollout_fleet.go
	natsAuth                 natsAuth
}

func rolloutCmd() *cobra.Command {
	var f rolloutFlags
	var cfg rl.Config
	cmd := &cobra.Command{
		Use:   "rollout BUNDLE... --policy random|oracle|openai -o FILE",
		Short: "Run GRPO groups of rollouts with a policy and write scored trajectories (JSONL or Parquet)",
		Long: "Run one GRPO group of --group rollouts per task (matching --tasks) of every bundle,\n" +
			"all groups at once, with a policy: random, oracle (the ground truth), or openai (any\n" +
			"OpenAI-compatible server: --base-url or $OPENAI_BASE_URL, key from $OPENAI_API_KEY).\n" +
			"Each rollout is scored, advantages are computed per group, and trajectories are\n" +
			"written to -o (.jsonl, .jsonl.gz, .parquet, or - for JSONL on stdout). See docs/ROLLOUT.md.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRollout(cmd, args, &f, cfg)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&cfg.Group, "group", 8, "rollouts per task (GRPO group size)")
	fl.StringVar(&cfg.Tasks, "tasks", "", "comma-separated globs over task ids, e.g. 'cancel-*' (default all; synth from-db's --tasks is a count)")
	fl.Int64Var(&cfg.Seed, "seed", 0, "base seed; rollout i of a group runs on seed+i")
	fl.IntVar(&cfg.MaxTurns, "max-turns", 20, "assistant turns per rollout")
	fl.IntVar(&cfg.MaxTokens, "max-tokens", 0, "completion tokens per rollout (0: no budget)")
	fl.IntVar(&cfg.Concurrency, "concurrency", 256, "rollouts (episodes) in flight at once")
	fl.BoolVar(&cfg.Normalize, "std-normalize", false, "divide advantages by the group's standard deviation")
	fl.BoolVar(&cfg.DropEqual, "drop-equal", false, "drop groups whose rewards are all equal (DAPO dynamic sampling)")
	fl.IntVar(&cfg.HistoryWindow, "history-window", 0, "split rollouts into one sample per turn keeping this many earlier turns (AWM; 0: off)")
	fl.IntVar(&cfg.Limits.CallsPerTurn, "max-calls-per-turn", rl.DefaultCallsPerTurn, "tool calls in one assistant message; more ends the rollout (max_calls_per_turn)")
	fl.IntVar(&cfg.Limits.MessageBytes, "max-message-bytes", rl.DefaultMessageBytes, "bytes of one assistant message; more ends the rollout (max_message_bytes)")
	fl.IntVar(&cfg.Limits.ConversationBytes, "max-conversation-bytes", rl.DefaultConversationBytes, "bytes of the conversation sent to the policy; more ends the rollout (max_conversation_bytes)")
	fl.IntVar(&cfg.Limits.ErrorBytes, "max-error-bytes", rl.DefaultErrorBytes, "bytes of error text kept in a trajectory (policy_error, environment errors)")
	fl.StringVarP(&f.output, "output", "o", "", "output file: .jsonl, .jsonl.gz (gzip), .parquet, or - (JSONL on stdout)")
	fl.BoolVar(&f.inline, "inline-tools", false, "JSONL: write the tools and system prompt into every line instead of once per toolset record")
	fl.StringVar(&f.summary, "summary-json", "", "also write the summary as JSON to this file")
	fl.BoolVar(&f.allTasks, "summary-tasks", false, "print every task's row in the summary (default: the 10 worst)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar (it is drawn only on a terminal anyway)")

	f.addPolicyFlags(cmd, &cfg)
	fl.StringVar(&f.nats, "nats", "", "run the groups on the workers of this NATS server (docs/SCALING.md)")
	f.natsAuth.add(cmd)
	fl.StringVar(&f.shard, "shard", "", "run only block i of n of the groups, in plan order (i/n; docs/SCALING.md)")
	fl.StringVar(&f.runID, "run-id", "", "with --nats: name the run; the id of a run that failed or was cancelled resumes it")
	return cmd
}

func runRollout(cmd *cobra.Command, args []string, f *rolloutFlags, cfg rl.Config) error {
	if f.output == "" {
		return fmt.Errorf("-o is required (a .jsonl or .parquet file, or - for stdout)")
	}
	// rl.Config reads 0 as "the default"; on the command line it is a mistake.
	if cfg.Group < 1 || cfg.MaxTurns < 1 || cfg.Concurrency < 1 {
		return fmt.Errorf("--group, --max-turns and --concurrency must be at least 1")
	}
	if l := cfg.Limits; l.CallsPerTurn < 1 || l.MessageBytes < 1 || l.ConversationBytes < 1 || l.ErrorBytes < 1 {
		return fmt.Errorf("--max-calls-per-turn, --max-message-bytes, --max-conversation-bytes and --max-error-bytes must be at least 1")
	}
	if f.nats != "" || f.shard != "" {
		return runRolloutFleet(cmd, args, f, cfg)
	}
	var err error
	if cfg.Format, err = rl.ParseToolFormat(f.format); err != nil {
		return err
	}
	if cfg.Reward, err = rl.ParseReward(f.reward, rl.RewardOptions{EnvFactory: f.envFactory}); err != nil {
		return err
	}
	policy, user, err := rolloutPolicy(f)
	if err != nil {
		return err
	}
	cfg.User = user
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var envs []*runtime.Env
	defer func() {
		for _, e := range envs {
			e.Close()
		}
	}()
	for _, path := range args {
		e, err := runtime.Load(ctx, path, runtime.Options{})
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		envs = append(envs, e)
	}
	out, abort, err := openRolloutOutput(f.output, cmd.OutOrStdout(), f.inline)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	var bar *progress.Bar
	if !f.quiet && progress.IsTerminal(stderr) { // a log file gets the summary, not redraws
		bar = progress.New(stderr, "")
		bar.Note("rollouts")
		cfg.Progress = bar.Update
	}
	sum, err := rl.Run(ctx, envs, policy, cfg, out)
	bar.Done()
	if err != nil {
		abort()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return reportRollouts(stderr, sum, f)
}

// reportRollouts prints a finished run's summary and writes its JSON
// (--summary-json), for a local run and a fleet run alike.
func reportRollouts(stderr io.Writer, sum *rl.Summary, f *rolloutFlags) error {
	if f.allTasks {
		sum.PrintTasks(stderr, -1)
	} else {
		sum.Print(stderr)
	}
	if f.summary != "" {
		b, _ := json.MarshalIndent(sum, "", "  ")
		if err := atomicfile.WriteFile(f.summary, append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// openRolloutOutput opens the exporter for path; abort drops a partly
// written file.
func openRolloutOutput(path string, stdout io.Writer, inline bool) (rl.Exporter, func(), error) {
	switch {
	case path == "-":
		j := rl.NewJSONL(stdout)
		j.Inline = inline
		return j, func() { j.Close() }, nil
	case strings.HasSuffix(path, ".parquet"):
		p, err := rl.CreateParquet(path)
		if err != nil {
			return nil, nil, err
		}
		return p, p.Abort, nil
	case strings.HasSuffix(path, ".jsonl"), strings.HasSuffix(path, ".json"), strings.HasSuffix(path, ".jsonl.gz"):
		j, err := rl.CreateJSONL(path)
		if err != nil {
			return nil, nil, err
		}
		j.Inline = inline
		return j, j.Abort, nil
	}
	return nil, nil, fmt.Errorf("output %q: want a .jsonl, .jsonl.gz or .parquet file, or -", path)
}
