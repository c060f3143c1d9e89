package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/runtime"
)

func init() { register(callCmd) }

func callCmd() *cobra.Command {
	var seed int64
	var task string
	cmd := &cobra.Command{
		Use:   "call FILE TOOL [JSON]",
		Short: "Call one tool on a fresh episode and print what the agent would receive",
		Long: "Call one tool on a fresh episode and print what the agent would receive.\n" +
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
			arg := "{}"
			if len(args) == 3 {
				arg = args[2]
			}
			r, err := ep.Call(cmd.Context(), args[1], []byte(arg))
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
