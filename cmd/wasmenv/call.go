package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

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

// taskOut is a task as `wasmenv tasks --json` prints it.
type taskOut struct {
	ID          string         `json:"id"`
	Instruction string         `json:"instruction"`
	Persona     string         `json:"persona,omitempty"`
	Setup       string         `json:"setup,omitempty"`
	Calls       []envpkg.Call  `json:"calls"`
	Checks      []envpkg.Check `json:"checks"`
	Answer      *envpkg.Answer `json:"answer,omitempty"`
	Reward      string         `json:"reward"`
}

func tasksCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tasks FILE",
		Short: "List a bundle's tasks",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := envpkg.Read(args[0])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				out := make([]taskOut, len(b.Tasks))
				for i, t := range b.Tasks {
					reward := t.Reward
					if reward == "" {
						reward = envpkg.RewardChecks
					}
					out[i] = taskOut{ID: t.ID, Instruction: t.Instruction, Persona: t.Persona, Setup: t.Setup,
						Calls: t.Calls, Checks: t.Checks, Answer: t.Answer, Reward: reward}
				}
				return writeJSON(w, out)
			}
			for _, t := range b.Tasks {
				fmt.Fprintf(w, "%s\t%d calls, %d checks\t%s\n", t.ID, len(t.Calls), len(t.Checks), firstLine(t.Instruction))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of tasks")
	return cmd
}
