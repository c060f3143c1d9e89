package fleet

import (
	"fmt"
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
	o := &server.Options{
		ServerName: c.Name, Host: c.Host, Port: c.Port,
		JetStream: true, StoreDir: c.StoreDir,
		NoSigs:     true, // the embedding command owns signals
		MaxPayload: c.MaxPayload,
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
