package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/bench"
)

func init() { register(benchCmd) }

func benchCmd() *cobra.Command {
	var (
		jsonOut  string
		plotDir  string
		episodes int
		duration time.Duration
		quiet    bool
	)
	c := &cobra.Command{
		Use:   "bench FILE",
		Short: "Measure resets, steps, throughput, memory and cold start, beside baselines",
		Long: `Measure a bundle: reset latency after a typical write workload, step latency
for read and write tools, throughput with 1 to 1,000 concurrent episodes, memory
per idle and active episode, cold start with and without the compile cache,
bundle size, and reset latency with the database grown to 1, 10 and 100 MB.
Baselines run in the same process on the same database: filecopy (copy the
SQLite file and reopen) and serdes (deserialize an in-memory image), and the
wasmtime engine in builds with -tags wasmtime. See docs/BENCHMARKS.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := envpkg.Read(args[0]); err != nil {
				return err
			}
			cfg := bench.Config{Episodes: episodes, Duration: duration}
			if !quiet {
				cfg.Log = func(s string) { fmt.Fprintln(os.Stderr, s) }
			}
			rep, err := bench.Run(cmd.Context(), args[0], cfg)
			if err != nil {
				return err
			}
			rep.WriteTable(cmd.OutOrStdout())
			if jsonOut != "" {
				b, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return err
				}
				if err := os.WriteFile(jsonOut, append(b, '\n'), 0o644); err != nil {
					return err
				}
			}
			if plotDir != "" {
				if err := bench.Plot(rep, plotDir); err != nil {
					return err
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&jsonOut, "json", "", "write the figures as one JSON object to this file")
	c.Flags().StringVar(&plotDir, "plots", "", "write PNG plots into this directory")
	c.Flags().IntVar(&episodes, "episodes", 1000, "largest number of concurrent episodes (throughput and memory)")
	c.Flags().DurationVar(&duration, "duration", time.Second, "how long each throughput point runs")
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress lines on stderr")
	return c
}
