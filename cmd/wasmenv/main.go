// Command wasmenv builds, inspects and runs wasmenv environment bundles.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
)

// exitError carries an exit code without printing a second message.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// extraCommands are registered by init functions in other files of this
// package (serve, bench), so that each face of the CLI lives in its own file.
var extraCommands []func() *cobra.Command

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := &cobra.Command{
		Use:           "wasmenv",
		Short:         "Portable, sandboxed tool-use environments for agent RL",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(buildCmd(), inspectCmd(), callCmd(), tasksCmd(), replayCmd(), demoCmd())
	for _, c := range extraCommands {
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
