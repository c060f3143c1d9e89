package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
)

// card is an environment's report card (issue 28): what its tools and
// tasks cover, how a perfect and a random policy score, and, for a
// synth output, what the gates dropped and what was skipped.
type card struct {
	Env           string         `json:"env"`
	Tools         int            `json:"tools"`
	ToolsByKind   map[string]int `json:"tools_by_kind"`
	ToolsCovered  int            `json:"tools_covered_by_tasks"`
	ToolsUnused   []string       `json:"tools_unused_by_tasks,omitempty"` // by name, sorted
	Tasks         int            `json:"tasks"`
	Reads         int            `json:"read_tasks"`
	Writes        int            `json:"write_tasks"`
	ChainHist     map[int]int    `json:"chain_lengths"`
	OracleReward  float64        `json:"oracle_mean_reward"`
	OracleSuccess float64        `json:"oracle_success"`
	RandomReward  float64        `json:"random_mean_reward"`
	RandomSuccess float64        `json:"random_success"`
	Dropped       map[string]int `json:"dropped_by_gate,omitempty"`
	Skipped       []string       `json:"skipped,omitempty"`
}

func synthReportCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "report OUTDIR|BUNDLE.wasm",
		Short: "An environment's report card: tools by kind and covered by tasks, chain lengths, oracle and random policy",
		Long: "Print the report card of an environment: tools by kind, tools the tasks use, the chain-length\n" +
			"histogram, the read/write share, the mean reward and success of the ground truth (oracle) and of a\n" +
			"random schema-valid policy (3 rollouts per task, 6 turns), and, for a synth from-db output\n" +
			"directory, the tasks each gate dropped and what of the source was skipped, with reasons.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := reportCard(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				b, _ := json.MarshalIndent(c, "", "  ")
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
				return nil
			}
			c.print(cmd.OutOrStdout())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the card as JSON")
	return cmd
}

// reportCard builds the card of a source directory or a bundle.
func reportCard(ctx context.Context, src string) (*card, error) {
	var b *envpkg.Bundle
	var sum *synth.Summary
	if fi, err := os.Stat(src); err != nil {
		return nil, err
	} else if fi.IsDir() {
		if b, err = compiler.Build(ctx, src, compiler.Options{}); err != nil {
			return nil, err
		}
		if raw, err := os.ReadFile(filepath.Join(src, "synth-summary.json")); err == nil {
			sum = &synth.Summary{}
			if err := json.Unmarshal(raw, sum); err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Join(src, "synth-summary.json"), err)
			}
		}
	} else if b, err = envpkg.Read(src); err != nil {
		return nil, err
	}
	env, err := runtime.LoadBundle(ctx, b, runtime.Options{})
	if err != nil {
		return nil, err
	}
	defer env.Close()
	c := &card{Env: b.Manifest.Name, Tools: len(b.Manifest.Tools), ToolsByKind: map[string]int{}, Tasks: len(b.Tasks), ChainHist: map[int]int{}}
	for _, t := range b.Manifest.Tools {
		kind, _, _ := strings.Cut(t.Name, "_")
		c.ToolsByKind[kind]++
	}
	if sum != nil && len(sum.ToolsByKind) > 0 {
		c.ToolsByKind = sum.ToolsByKind
	}
	used := map[string]bool{}
	for _, t := range b.Tasks {
		for _, call := range t.Calls {
			used[call.Name] = true
		}
		c.ChainHist[len(t.Calls)]++
		if changesState(t) {
			c.Writes++
		} else {
			c.Reads++
		}
	}
	c.ToolsCovered = len(used)
	for _, t := range b.Manifest.Tools {
		if !used[t.Name] {
			c.ToolsUnused = append(c.ToolsUnused, t.Name)
		}
	}
	sort.Strings(c.ToolsUnused)
	if len(b.Tasks) > 0 {
		s, err := rl.Run(ctx, []*runtime.Env{env}, rl.Oracle{}, rl.Config{Group: 1, MaxTurns: 40}, discard{})
		if err != nil {
			return nil, err
		}
		c.OracleReward, c.OracleSuccess = s.MeanReward, s.SuccessRate()
		s, err = rl.Run(ctx, []*runtime.Env{env}, &rl.Random{}, rl.Config{Group: 3, MaxTurns: 6}, discard{})
		if err != nil {
			return nil, err
		}
		c.RandomReward, c.RandomSuccess = s.MeanReward, s.SuccessRate()
	}
	if sum != nil {
		c.Dropped = map[string]int{}
		for g, n := range sum.Tasks.Gates.Dropped {
			c.Dropped[string(g)] = n
		}
		c.Skipped = sum.Skipped
	}
	return c, nil
}

type discard struct{}

func (discard) Write([]rl.Rollout) error { return nil }
func (discard) Close() error             { return nil }

func (c *card) print(w io.Writer) {
	fmt.Fprintf(w, "environment %s\n", c.Env)
	var kinds []string
	for k, n := range c.ToolsByKind {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	fmt.Fprintf(w, "tools: %d (%s); %d used by the tasks\n", c.Tools, strings.Join(kinds, ", "), c.ToolsCovered)
	if len(c.ToolsUnused) > 0 {
		fmt.Fprintf(w, "unused by the tasks (%d): %s\n", len(c.ToolsUnused), strings.Join(c.ToolsUnused, ", "))
	}
	share := 0.0
	if c.Tasks > 0 {
		share = 100 * float64(c.Reads) / float64(c.Tasks)
	}
	fmt.Fprintf(w, "tasks: %d (%d read, %d write: %.0f%% read)\n", c.Tasks, c.Reads, c.Writes, share)
	var lens []int
	for n := range c.ChainHist {
		lens = append(lens, n)
	}
	sort.Ints(lens)
	var hist []string
	for _, n := range lens {
		hist = append(hist, fmt.Sprintf("%d calls: %d", n, c.ChainHist[n]))
	}
	fmt.Fprintf(w, "chain lengths: %s\n", strings.Join(hist, ", "))
	fmt.Fprintf(w, "oracle: mean reward %.3f, success %.0f%%\n", c.OracleReward, 100*c.OracleSuccess)
	fmt.Fprintf(w, "random policy: mean reward %.3f, success %.0f%%\n", c.RandomReward, 100*c.RandomSuccess)
	if len(c.Dropped) > 0 {
		var d []string
		for g, n := range c.Dropped {
			d = append(d, fmt.Sprintf("%s %d", g, n))
		}
		sort.Strings(d)
		fmt.Fprintf(w, "dropped by the gates: %s\n", strings.Join(d, ", "))
	}
	for _, s := range c.Skipped {
		fmt.Fprintf(w, "skipped: %s\n", s)
	}
}

// changesState reports whether a task asks for a change: a check that is
// not a guard ("nothing changed" gates questions and refusals too), or the
// state reward.
func changesState(t envpkg.Task) bool {
	if t.Reward == envpkg.RewardState {
		return true
	}
	for _, c := range t.Checks {
		if !c.Guard {
			return true
		}
	}
	return false
}
