package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/fleet"
)

func init() { register(clusterCmd) }

func clusterCmd() *cobra.Command {
	var c fleet.ServerConfig
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Start an embedded NATS server with JetStream, to try the fleet on one machine",
		Long: "Start a NATS server with JetStream in this process and serve until Ctrl-C or\n" +
			"SIGTERM. Then run `wasmenv worker --nats URL` (as many as you like) and\n" +
			"`wasmenv rollout ... --nats URL`. It listens on 127.0.0.1 unless --host says\n" +
			"otherwise, and off loopback only with --config naming users or nkeys to\n" +
			"authenticate every client (see deploy/nats/fleet-auth.conf). For several\n" +
			"machines run a real NATS cluster (docs/SCALING.md).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := fleet.StartServer(c)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "NATS with JetStream on %s (store %s); Ctrl-C stops it\n", s.ClientURL(), c.StoreDir)
			<-ctx.Done()
			s.Shutdown()
			s.WaitForShutdown()
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&c.Host, "host", "127.0.0.1", "listen address")
	fl.IntVar(&c.Port, "port", 4222, "client port (-1: a free one)")
	fl.StringVar(&c.StoreDir, "store", filepath.Join(defaultCacheDir(), "jetstream"), "JetStream's directory")
	fl.StringVar(&c.Name, "name", "", "server name")
	fl.StringVar(&c.ConfigFile, "config", "", "a NATS server configuration file (users, nkeys, accounts, permissions, TLS); required off loopback (docs/SCALING.md, \"Securing the fleet\")")
	return cmd
}
