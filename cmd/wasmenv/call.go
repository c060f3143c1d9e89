package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/runtime"
)

func init() { register(callCmd) }

func callCmd() *cobra.Command {
	var seed int64
	var task string
	cmd := &cobra.Command{
		Use:   "call FILE TOOL [JSON | @ARGS.json | -]",
		Short: "Call one tool on a fresh episode and print what the agent would receive",
		Long: "Call one tool on a fresh episode and print what the agent would receive.\n" +
			"The arguments are JSON on the command line, @FILE to read them from a file, or - to\n" +
			"read them from standard input (for arguments past the shell's length limit).\n" +
			"The exit status is 1 when the result is a tool error.",
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := runtime.Load(cmd.Context(), args[0], runtime.Options{})
			if err != nil {
				return err
			}
			defer env.Close()
			ep, err := env.NewEpisode(task, seed)
			if err != nil {
				return err
			}
			defer ep.Close()
			arg := []byte("{}")
			if len(args) == 3 {
				if arg, err = readArgs(cmd.InOrStdin(), args[2]); err != nil {
					return err
				}
			}
			r, err := ep.Call(cmd.Context(), args[1], arg)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), r.Content)
			if r.IsError {
				return exitError{1}
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&seed, "seed", 0, "episode seed")
	cmd.Flags().StringVar(&task, "task", "", "start from this task's initial state")
	return cmd
}

// readArgs is a call's arguments: JSON as given, @FILE's contents, or
// standard input for "-".
func readArgs(stdin io.Reader, a string) ([]byte, error) {
	switch {
	case a == "-":
		return io.ReadAll(stdin)
	case strings.HasPrefix(a, "@"):
		return os.ReadFile(a[1:])
	}
	return []byte(a), nil
}
