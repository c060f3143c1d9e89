package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/runtime"
)

func init() { register(demoCmd) }

func demoCmd() *cobra.Command {
	var name, task string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Build an embedded example environment and run one episode end to end",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return demo(cmd.Context(), cmd.OutOrStdout(), name, task)
		},
	}
	cmd.Flags().StringVar(&name, "env", "store", "embedded example ("+strings.Join(envs.Names(), ", ")+")")
	cmd.Flags().StringVar(&task, "task", "", "task id (default: the environment's first task)")
	return cmd
}

func demo(ctx context.Context, w io.Writer, name, taskID string) error {
	if !slices.Contains(envs.Names(), name) {
		return fmt.Errorf("no embedded example %q (have %s)", name, strings.Join(envs.Names(), ", "))
	}
	src, err := extractExample(name)
	if err != nil {
		return err
	}
	defer os.RemoveAll(src)
	out := filepath.Join(os.TempDir(), "wasmenv-demo-"+name+".wasm")
	fmt.Fprintf(w, "== build %s (first build compiles Go's runtime for wasip1: ~10-60 s; later builds hit the cache)\n", name)
	start := time.Now()
	b, err := compiler.BuildFile(ctx, src, out, compiler.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d tools, %d tasks, %s, hash %s (%s)\n\n", out, len(b.Manifest.Tools), len(b.Tasks), human(b.Size), b.Hash, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	env, err := runtime.Load(ctx, out, runtime.Options{})
	if err != nil {
		return err
	}
	defer env.Close()
	fmt.Fprintf(w, "== load: %s\n", time.Since(start).Round(time.Microsecond))
	if taskID == "" {
		taskID = b.Tasks[0].ID
	}
	ep, err := env.NewEpisode(taskID, 42)
	if err != nil {
		return err
	}
	defer ep.Close()
	t := ep.Task()
	fmt.Fprintf(w, "\n== task %s\n%s\n\n", t.ID, t.Instruction)
	for _, c := range t.Calls {
		start := time.Now()
		r, err := ep.Call(ctx, c.Name, c.Arguments)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "-> %s %s   (%s)\n<- %s\n", c.Name, c.Arguments, time.Since(start).Round(time.Microsecond), clip(r.Content, 300))
	}
	diff, err := ep.Diff()
	if err != nil {
		return err
	}
	d, _ := json.MarshalIndent(diff, "", "  ")
	fmt.Fprintf(w, "\n== state diff\n%s\n", clip(string(d), 1500))
	s, err := ep.Score(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n== score with the ground-truth calls: reward %.2f (%d/%d checks)\n", s.Reward, s.Passed, s.Total)

	start = time.Now()
	const resets = 1000
	for range resets {
		if err := ep.Reset(); err != nil {
			return err
		}
	}
	per := time.Since(start) / resets
	s, err = ep.Score(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== after reset (%s each, mean of %d), no calls: reward %.2f (%d/%d checks)\n", per, resets, s.Reward, s.Passed, s.Total)
	for _, c := range s.Checks {
		if c.Guard && c.Passed {
			fmt.Fprintf(w, "   guard %q passes, but a guard gates the reward instead of adding to it: doing nothing earns nothing\n", c.Name)
		}
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}
