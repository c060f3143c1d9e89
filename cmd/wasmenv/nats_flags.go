package main

import (
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/fleet"
)

// natsAuth is how every command that connects to NATS authenticates to
// it and to the fleet (docs/SCALING.md, "Securing the fleet"): the bus's
// credentials (a creds file, an nkey seed, or user:password in the URL),
// TLS (a CA to verify the server, a client certificate for mutual TLS),
// and the fleet key that signs jobs, results and dead letters.
type natsAuth struct {
	creds, nkey            string
	tlsCA, tlsCert, tlsKey string
	fleetKey               string
}

func (a *natsAuth) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&a.creds, "nats-creds", "", "with --nats: a NATS user credentials file (JWT and nkey seed)")
	fl.StringVar(&a.nkey, "nats-nkey", "", "with --nats: a file holding the nkey seed (SU...) of this process's NATS user")
	fl.StringVar(&a.tlsCA, "nats-tls-ca", "", "with --nats: verify the NATS server's TLS certificate against this CA (PEM)")
	fl.StringVar(&a.tlsCert, "nats-tls-cert", "", "with --nats: a client certificate (PEM) for mutual TLS, with --nats-tls-key")
	fl.StringVar(&a.tlsKey, "nats-tls-key", "", "with --nats: the client certificate's key (PEM)")
	fl.StringVar(&a.fleetKey, "fleet-key", "", "with --nats: the fleet's shared secret (a file of 32 bytes or more, mode 0600): jobs, results and dead letters are signed with it, and unsigned ones refused")
}

// connect connects to url as name with the options of a.
func (a *natsAuth) connect(url, name string) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1)}
	if a.creds != "" && a.nkey != "" {
		return nil, fmt.Errorf("--nats-creds and --nats-nkey name two identities: give one")
	}
	if a.creds != "" {
		opts = append(opts, nats.UserCredentials(a.creds))
	}
	if a.nkey != "" {
		o, err := nats.NkeyOptionFromSeed(a.nkey)
		if err != nil {
			return nil, fmt.Errorf("--nats-nkey: %w", err)
		}
		opts = append(opts, o)
	}
	if a.tlsCA != "" {
		opts = append(opts, nats.RootCAs(a.tlsCA))
	}
	if (a.tlsCert == "") != (a.tlsKey == "") {
		return nil, fmt.Errorf("--nats-tls-cert and --nats-tls-key go together")
	}
	if a.tlsCert != "" {
		opts = append(opts, nats.ClientCert(a.tlsCert, a.tlsKey))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", url, err)
	}
	return nc, nil
}

// key reads the fleet key (nil without --fleet-key).
func (a *natsAuth) key() ([]byte, error) {
	if a.fleetKey == "" {
		return nil, nil
	}
	return fleet.ReadFleetKey(a.fleetKey)
}
