package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/envpkg"
)

func init() { register(tasksCmd) }

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
