package fleet

import (
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServerConfig describes an embedded NATS server with JetStream: alone for
// one machine (`wasmenv cluster`), or a node of a cluster.
type ServerConfig struct {
	Name     string // server name, unique in a cluster (default: nats-<port>)
	Host     string // default 127.0.0.1
	Port     int    // client port; -1 picks a free one; default 4222
	StoreDir string // JetStream's files (required)
	// MaxPayload is the largest message in bytes (default NATS's 1 MiB);
	// larger results travel through the object store.
	MaxPayload int32
	// Cluster, when set, makes the server a node of this cluster: it
	// listens for routes on ClusterPort and connects to Routes
	// (nats-route://host:port of the other nodes).
	Cluster     string
	ClusterPort int
	Routes      []string
	// ConfigFile, when set, is a NATS server configuration file read
	// first: its users (passwords, nkeys), accounts, per-role permissions
	// and TLS apply; the fields above override its listen address, port,
	// store and name.
	ConfigFile string
}

// StartServer starts an embedded NATS server with JetStream and waits
// until it accepts clients. Shutdown stops it.
func StartServer(c ServerConfig) (*server.Server, error) {
	if c.StoreDir == "" {
		return nil, errorf(CodeBadInput, nil, "the server needs a store directory for JetStream")
	}
	if c.Host == "" {
		c.Host = "127.0.0.1"
	}
	if c.Port == 0 {
		c.Port = 4222
	}
	o := &server.Options{}
	if c.ConfigFile != "" {
		var err error
		if o, err = server.ProcessConfigFile(c.ConfigFile); err != nil {
			return nil, errorf(CodeBadInput, err, "nats server configuration")
		}
	}
	o.ServerName, o.Host, o.Port = c.Name, c.Host, c.Port
	o.JetStream, o.StoreDir = true, c.StoreDir
	o.NoSigs = true // the embedding command owns signals
	if c.MaxPayload != 0 {
		o.MaxPayload = c.MaxPayload
	}
	if !loopback(c.Host) && !hasAuth(o) {
		return nil, errorf(CodeBadInput, nil, "a NATS server on %s (not loopback) must authenticate its clients: "+
			"give a configuration with users, nkeys or accounts (docs/SCALING.md, \"Securing the fleet\")", c.Host)
	}
	if o.ServerName == "" {
		o.ServerName = fmt.Sprintf("nats-%d", c.Port)
	}
	if c.Cluster != "" {
		o.Cluster = server.ClusterOpts{Name: c.Cluster, Host: c.Host, Port: c.ClusterPort}
		for _, r := range c.Routes {
			u, err := url.Parse(r)
			if err != nil {
				return nil, errorf(CodeBadInput, err, "route %q", r)
			}
			o.Routes = append(o.Routes, u)
		}
	}
	s, err := server.NewServer(o)
	if err != nil {
		return nil, errorf(CodeBadInput, err, "nats server")
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return nil, errorf(CodeUnavailable, nil, "nats server on %s:%d did not start", c.Host, c.Port)
	}
	return s, nil
}

// loopback reports whether host is reachable from this machine alone.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hasAuth reports whether the server authenticates every client: users
// with passwords or nkeys (of any account), a token, trusted operators or
// an auth callout, and no user that clients without credentials become.
func hasAuth(o *server.Options) bool {
	if o.NoAuthUser != "" {
		return false
	}
	return len(o.Users) > 0 || len(o.Nkeys) > 0 || o.Username != "" || o.Authorization != "" ||
		len(o.TrustedOperators) > 0 || len(o.TrustedKeys) > 0 || o.AuthCallout != nil
}
