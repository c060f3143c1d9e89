package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envtest"
	"github.com/wasmenv/wasmenv/runtime"
)

func init() { register(testCmd) }

func testCmd() *cobra.Command {
	var seed int64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "test DIR|FILE.wasm",
		Short: "Check an environment's tasks: ground truth valid and scoring 1.0, doing nothing scoring less",
		Long: `Check an environment the way go test checks a package. For every task:
every ground-truth call names a tool and passes its input schema; the ground
truth, replayed on a fresh episode, earns reward 1.0; the empty episode (no
calls, no answer) earns less than 1.0 when the ground truth changes state;
every check is read-only and evaluates without an error.

DIR is an environment source directory (built first, nothing written) or a
bundle. Prints one row per task, then the problems (--json: the report);
the exit status is 1 when a task fails.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := loadOrBuild(cmd, args[0])
			if err != nil {
				return err
			}
			env, err := runtime.LoadBundle(cmd.Context(), b, runtime.Options{})
			if err != nil {
				return err
			}
			defer env.Close()
			r, err := envtest.Run(cmd.Context(), env, envtest.Options{Seed: seed})
			if err != nil {
				return err
			}
			if asJSON {
				err = writeJSON(cmd.OutOrStdout(), r)
			} else {
				err = r.WriteTable(cmd.OutOrStdout())
			}
			if err != nil {
				return err
			}
			if r.Failed() > 0 {
				return exitError{1}
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&seed, "seed", 0, "episode seed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON ({env, tasks: [{id, calls, ground_truth, empty, changes_state, problems, notes}]})")
	return cmd
}

// loadOrBuild reads a bundle file, or builds a source directory in memory.
func loadOrBuild(cmd *cobra.Command, path string) (*envpkg.Bundle, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		b, err := envpkg.Read(path)
		return b, withPath(path, err)
	}
	opts := compiler.Options{Log: func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), s) }}
	return compiler.Build(cmd.Context(), path, opts)
}

// withPath names the file in err unless it already does (envpkg.Read
// names it; errors found later by the runtime do not).
func withPath(path string, err error) error {
	if err == nil || strings.HasPrefix(err.Error(), path+":") {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}
