package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/rl/arena"
	"github.com/wasmenv/wasmenv/runtime"
)

func init() { register(arenaCmd) }

func arenaCmd() *cobra.Command {
	var f rolloutFlags
	var cfg arena.Config
	var sources, train []string
	var diagnose, diagModel, trainer string
	var rf retainFlags // synth_retain.go
	writeShare := -1.0
	cmd := &cobra.Command{
		Use:   "arena --arena NAME=DB|BUNDLE[:CATEGORY]... --policy P --out DIR",
		Short: "Self-evolving arena: fresh tasks, evaluate, diagnose, targeted tasks, train, repeat (docs/ARENA.md)",
		Long: "Each round draws fresh tasks for every arena environment (synth from-db on its\n" +
			"database, or on a bundle's database, with a new seed), evaluates the policy, writes a\n" +
			"failure report and a diagnosis, and picks targeted tasks (plus an untargeted control of\n" +
			"the same size) for the weak environments, handed to --trainer. Everything goes to\n" +
			"DIR/round-N/; a rerun resumes. See docs/ARENA.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if cfg.Out == "" {
				return fmt.Errorf("--out is required")
			}
			// The library reads 0 as "the default"; on the command line it is a mistake.
			if cfg.Rounds < 1 || cfg.EvalTasks < 1 || cfg.Group < 1 || cfg.Targeted < 1 || cfg.MaxTurns < 1 {
				return fmt.Errorf("--rounds, --eval-tasks, --group, --targeted and --max-turns must be at least 1")
			}
			if trainer != "" && strings.ContainsAny(cfg.Out, " \t\n") {
				return fmt.Errorf("--out %q: $WASMENV_ARENA_BUNDLES is space-separated, so --out may not contain spaces with --trainer", cfg.Out)
			}
			if writeShare > 1 || (writeShare < 0 && writeShare != -1) || cfg.Synth.MaxChain < 0 {
				return fmt.Errorf("--write-share %g (want 0 to 1) or --max-chain %d (want 1 or more) out of range", writeShare, cfg.Synth.MaxChain)
			}
			if writeShare >= 0 {
				cfg.Synth.WriteShare = &writeShare
			}
			var err error
			if cfg.Arena, err = arenaSources(sources, filepath.Join(cfg.Out, "sources")); err != nil {
				return err
			}
			if cfg.Policy, _, err = rolloutPolicy(&f); err != nil {
				return err
			}
			if cfg.Retain, err = rf.config(); err != nil {
				return err
			}
			if cfg.Retain != nil {
				cfg.RetainID = fmt.Sprintf("k=%d max-turns=%d model=%q base-url=%q temperature=%g", rf.k, rf.maxTurns, rf.model, rf.baseURL, rf.temperature)
			}
			cfg.PolicyID = fmt.Sprintf("%s model=%q base-url=%q temperature=%g", f.policy, f.model, f.baseURL, f.temperature)
			switch diagnose {
			case "procedural":
			case "llm":
				if diagModel == "" {
					return fmt.Errorf("--diagnose llm needs --diagnose-model")
				}
				cfg.Diagnoser = &arena.LLM{Client: chatapi.New(f.baseURL, "", 4), Model: diagModel}
			default:
				return fmt.Errorf("unknown --diagnose %q (want procedural or llm)", diagnose)
			}
			if trainer != "" {
				cfg.Train = func(ctx context.Context, round int, targeted []string) error {
					return runTrainer(ctx, trainer, round, append(targeted, train...))
				}
			}
			cfg.Log = cmd.ErrOrStderr()
			res, err := arena.Run(ctx, cfg)
			for _, r := range res {
				fmt.Fprintf(cmd.OutOrStdout(), "round %d: arena success %.3f, weak %s, targeted %v\n",
					r.Round, r.SuccessRate, strings.Join(r.Weak, ","), r.Targeted)
			}
			return err
		},
	}
	fl := cmd.Flags()
	rf.add(fl)
	fl.StringArrayVar(&sources, "arena", nil, "arena environment NAME=DB (SQLite) or NAME=BUNDLE.wasm, with :CATEGORY (repeat)")
	fl.StringArrayVar(&train, "train", nil, "training bundles handed to the trainer with the targeted ones (repeat)")
	fl.StringVar(&cfg.Out, "out", "", "the run's folder (resumes when it exists)")
	fl.IntVar(&cfg.Rounds, "rounds", 2, "rounds")
	fl.Int64Var(&cfg.Seed, "seed", 0, "base seed")
	fl.IntVar(&cfg.EvalTasks, "eval-tasks", 20, "fresh tasks per environment per round")
	fl.IntVar(&cfg.Group, "group", 4, "rollouts per evaluation task")
	fl.IntVar(&cfg.Targeted, "targeted", 50, "targeted tasks per weak environment")
	fl.IntVar(&cfg.MaxTurns, "max-turns", 20, "assistant turns per rollout")
	fl.BoolVar(&cfg.NoComplexify, "no-complexify", false, "draw targeted tasks from the weak environment's own database (no distractor rows)")
	fl.IntVar(&cfg.Synth.MaxChain, "max-chain", 0, "synthesis: most tool calls per task (0: synth's default, 8)")
	fl.Float64Var(&writeShare, "write-share", -1, "synthesis: share of write tasks, 0 to 1 (-1: synth's default, 0.5)")
	fl.Float64Var(&cfg.MinGain, "min-gain", 0.01, "stop when arena success gains less than this over the previous round")
	fl.StringVar(&diagnose, "diagnose", "procedural", "procedural or llm")
	fl.StringVar(&diagModel, "diagnose-model", "", "llm diagnosis: model (endpoint: --base-url)")
	fl.StringVar(&trainer, "trainer", "", "command run after each round (sh -c) with $WASMENV_ARENA_ROUND and $WASMENV_ARENA_BUNDLES")
	fl.StringVar(&f.policy, "policy", "random", "random, oracle or openai")
	fl.StringVar(&f.baseURL, "base-url", "", "openai: server URL (default $OPENAI_BASE_URL)")
	fl.StringVar(&f.model, "model", "", "openai: model name")
	fl.Float64Var(&f.temperature, "temperature", 1, "openai: sampling temperature")
	fl.IntVar(&f.requests, "max-requests", 64, "openai: requests in flight at once")
	fl.IntVar(&f.retries, "retries", 5, "openai: retries of a transient failure")
	fl.DurationVar(&f.timeout, "request-timeout", 2*time.Minute, "openai: limit of one request attempt")
	cmd.AddCommand(arenaReportCmd(), arenaPlotCmd())
	return cmd
}

// arenaSources parses NAME=PATH[:CATEGORY]; a bundle's database is written
// to dir so that from-db can read it (once: a different database under the
// same name is refused, never overwritten).
func arenaSources(specs []string, dir string) ([]arena.Source, error) {
	if len(specs) == 0 {
		return nil, fmt.Errorf("--arena is required (NAME=DB or NAME=BUNDLE.wasm)")
	}
	var out []arena.Source
	for _, s := range specs {
		name, path, ok := strings.Cut(s, "=")
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("--arena %q: want NAME=DB or NAME=BUNDLE.wasm[:CATEGORY]", s)
		}
		if !envpkg.ValidEnvName(name) {
			return nil, fmt.Errorf("--arena %q: %q is not an environment name (lower-case letters, digits, - and _)", s, name)
		}
		var cat string
		if _, err := os.Stat(path); err != nil {
			if i := strings.LastIndex(path, ":"); i > 0 {
				path, cat = path[:i], path[i+1:]
			}
		}
		if strings.HasSuffix(path, ".wasm") {
			b, err := envpkg.Read(path)
			if err != nil {
				return nil, err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			db := filepath.Join(dir, name+".sqlite")
			if old, err := os.ReadFile(db); err == nil {
				if !bytes.Equal(old, b.DB) {
					return nil, fmt.Errorf("--arena %s: %s holds another database under that name: use another --out", s, db)
				}
			} else if err := envpkg.WriteFileAtomic(db, b.DB); err != nil {
				return nil, err
			}
			path = db
		}
		out = append(out, arena.Source{Name: name, DB: path, Category: cat})
	}
	return out, nil
}

func runTrainer(ctx context.Context, command string, round int, bundles []string) error {
	c := exec.CommandContext(ctx, "sh", "-c", command)
	c.Env = append(os.Environ(), fmt.Sprintf("WASMENV_ARENA_ROUND=%d", round), "WASMENV_ARENA_BUNDLES="+strings.Join(bundles, " "))
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("trainer %q: %w", command, err)
	}
	return nil
}

// arenaReportCmd is the failure report of any rollout file.
func arenaReportCmd() *cobra.Command {
	var rollouts string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "report BUNDLE... --rollouts FILE.jsonl",
		Short: "Failure report of a rollout file: outcomes per tool, causes, divergence from the ground truth",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			envs := map[string]*runtime.Env{}
			for _, p := range args {
				env, err := runtime.Load(ctx, p, runtime.Options{})
				if err != nil {
					return err
				}
				defer env.Close()
				envs[env.Name()] = env
			}
			f, err := os.Open(rollouts)
			if err != nil {
				return err
			}
			recs, err := arena.ReadRecords(f)
			f.Close()
			if err != nil {
				return err
			}
			rep, err := arena.BuildReport(ctx, envs, nil, recs)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			rep.WriteText(cmd.OutOrStdout())
			return nil
		},
	}
	cmd.Flags().StringVar(&rollouts, "rollouts", "", "rollout JSONL (wasmenv rollout -o)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "the whole report as JSON")
	cmd.MarkFlagRequired("rollouts")
	return cmd
}
