// Command wasmenv builds, inspects and runs wasmenv environment bundles.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// exitError carries an exit code without printing a second message.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// commands holds every subcommand. Each lives in its own file and adds
// itself there with register from an init function; main lists none.
var commands []func() *cobra.Command

// register adds a subcommand (call it from an init function).
func register(c func() *cobra.Command) { commands = append(commands, c) }

func main() {
	// SIGINT and SIGTERM cancel the command's context: every long step
	// (a query on a source database included) watches it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := &cobra.Command{
		Use:           "wasmenv",
		Short:         "Portable, sandboxed tool-use environments for agent RL",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, c := range commands {
		root.AddCommand(c())
	}
	if err := root.ExecuteContext(ctx); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "wasmenv:", err)
		os.Exit(1)
	}
}
