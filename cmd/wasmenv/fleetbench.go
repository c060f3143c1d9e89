package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
	"github.com/wasmenv/wasmenv/internal/fleetbench"
)

func init() { register(fleetBenchCmd) }

func fleetBenchCmd() *cobra.Command {
	var (
		cfg            fleetbench.Config
		workers        string
		jsonOut, plots string
		quiet          bool
	)
	cmd := &cobra.Command{
		Use:   "fleet-bench BUNDLE...",
		Short: "Measure rollouts/s and steps/s on 1, 2, 4 worker processes over NATS against the in-process engine",
		Long: "Start an embedded NATS server on loopback, run every task of the bundles in groups of\n" +
			"--group with the random policy in this process (one group at a time, all at once) and on\n" +
			"--workers `wasmenv worker` processes (each set on an embedded server of its own), in\n" +
			"interleaved rounds: one warm-up round, then --runs measured ones, the median reported. Then\n" +
			"the cost NATS adds per job (groups of one rollout of one turn, one at a time). See docs/SCALING.md.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, s := range strings.Split(workers, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil || n < 1 || n > 64 {
					return fmt.Errorf("--workers %q: want counts from 1 to 64, e.g. 1,2,4", workers)
				}
				cfg.Workers = append(cfg.Workers, n)
			}
			if cfg.Group < 1 || cfg.MaxTurns < 1 || cfg.Runs < 1 || cfg.Slots < 1 {
				return fmt.Errorf("--group, --max-turns, --runs and --jobs must be at least 1")
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			cfg.Bundles, cfg.Binary = args, exe
			if !quiet {
				cfg.Log = func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), s) }
			}
			rep, err := fleetbench.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			rep.WriteTable(cmd.OutOrStdout())
			if jsonOut != "" {
				b, _ := json.MarshalIndent(rep, "", "  ")
				if err := atomicfile.WriteFile(jsonOut, append(b, '\n')); err != nil {
					return err
				}
			}
			if plots != "" {
				return fleetbench.Plot(rep, plots)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&cfg.Group, "group", 16, "rollouts per group")
	fl.IntVar(&cfg.MaxTurns, "max-turns", 20, "assistant turns per rollout")
	fl.Int64Var(&cfg.Seed, "seed", 1, "base seed")
	fl.StringVar(&workers, "workers", "1,2,4", "worker process counts")
	fl.IntVar(&cfg.Slots, "jobs", 1, "jobs each worker runs at once")
	fl.IntVar(&cfg.Runs, "runs", 3, "measured runs per point (after one warm-up)")
	fl.StringVar(&jsonOut, "json", "", "write the report as JSON to this file")
	fl.StringVar(&plots, "plots", "", "write fleet-rollouts.png and fleet-steps.png into this directory")
	fl.BoolVarP(&quiet, "quiet", "q", false, "no progress lines on stderr")
	return cmd
}
