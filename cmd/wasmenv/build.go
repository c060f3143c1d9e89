package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/envtest"
)

func init() { register(buildCmd) }

func buildCmd() *cobra.Command {
	var out string
	var opts compiler.Options
	var example, noTest bool
	cmd := &cobra.Command{
		Use:   "build DIR -o FILE.wasm",
		Short: "Compile an environment source directory into a bundle",
		Long: "Compile an environment source directory into a bundle.\n" +
			"With --example, DIR names an embedded example (" + strings.Join(envs.Names(), ", ") + ").",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if example {
				tmp, err := extractExample(dir)
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			}
			if out == "" {
				out = filepath.Base(filepath.Clean(args[0])) + ".wasm"
			}
			opts.Log = func(s string) { fmt.Fprintln(os.Stderr, s) }
			b, err := compiler.Build(cmd.Context(), dir, opts)
			if err != nil {
				return err
			}
			if !noTest {
				// The cheap part of wasmenv test: no tool code runs.
				if err := staticCheck(dir, b); err != nil {
					return err
				}
			}
			if err := envpkg.Write(out, b); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s %s, %d tools, %d tasks, %s (database %s raw, %s zstd), hash %s\n",
				out, b.Manifest.Name, b.Manifest.Version, len(b.Manifest.Tools), len(b.Tasks),
				human(b.Size), human(int64(len(b.DB))), human(b.DBZstd), b.Hash)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "bundle file to write (default DIR.wasm)")
	cmd.Flags().BoolVar(&opts.NoCache, "no-cache", false, "rebuild the tool module even if cached")
	cmd.Flags().BoolVar(&opts.KeepWork, "work", false, "keep the build directory and print its path")
	cmd.Flags().BoolVar(&noTest, "no-test", false, "skip checking ground-truth calls against the tools' schemas")
	cmd.Flags().BoolVar(&example, "example", false, "DIR names an embedded example environment")
	return cmd
}

// staticCheck runs envtest.Static and reports its problems at their
// source lines.
func staticCheck(dir string, b *envpkg.Bundle) error {
	r := envtest.Static(b)
	if r.Failed() == 0 {
		return nil
	}
	var lines []string
	for _, t := range r.Tasks {
		for _, p := range t.Problems {
			place := compiler.TaskPlace(dir, t.ID, p.Call)
			if place == "" {
				place = filepath.Join(dir, "tasks")
			}
			lines = append(lines, fmt.Sprintf("%s: task %s: %s", place, t.ID, p.Msg))
		}
	}
	return fmt.Errorf("%s\n%d of %d tasks fail; nothing written (--no-test builds anyway)", strings.Join(lines, "\n"), r.Failed(), len(r.Tasks))
}

// extractExample writes an embedded example to a temporary directory.
func extractExample(name string) (string, error) {
	tmp, err := os.MkdirTemp("", "wasmenv-example-")
	if err != nil {
		return "", err
	}
	if err := envs.Extract(name, tmp); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("no embedded example %q (have %s)", name, strings.Join(envs.Names(), ", "))
	}
	return tmp, nil
}

func human(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
