package remote

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServerConfig is an embedded NATS server with JetStream.
type ServerConfig struct {
	// Listen is the client address, HOST:PORT (port 0: any free one).
	Listen string
	// Store is where JetStream keeps its data.
	Store string
	// Name is the server's name (a cluster needs one per node).
	Name string
	// Cluster, when set, joins a cluster: its name, this node's route
	// address and the routes of every node.
	Cluster       string
	ClusterListen string
	Routes        []string
}

// Server is a running embedded NATS server.
type Server struct{ s *server.Server }

// StartServer starts an embedded NATS server with JetStream in this
// process and waits until it takes connections.
func StartServer(cfg ServerConfig) (*Server, error) {
	host, port, err := splitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %w", cfg.Listen, err)
	}
	if cfg.Store == "" {
		return nil, fmt.Errorf("the NATS server needs a store directory")
	}
	if port == 0 {
		port = server.RANDOM_PORT // to the server, 0 means its default, 4222
	}
	opts := &server.Options{ServerName: cfg.Name, Host: host, Port: port, JetStream: true, StoreDir: cfg.Store,
		NoSigs: true, NoLog: true}
	if cfg.Cluster != "" {
		ch, cp, err := splitHostPort(cfg.ClusterListen)
		if err != nil {
			return nil, fmt.Errorf("cluster address %q: %w", cfg.ClusterListen, err)
		}
		opts.Cluster = server.ClusterOpts{Name: cfg.Cluster, Host: ch, Port: cp}
		for _, r := range cfg.Routes {
			u, err := url.Parse(r)
			if err != nil {
				return nil, fmt.Errorf("route %q: %w", r, err)
			}
			opts.Routes = append(opts.Routes, u)
		}
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("starting NATS: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		s.WaitForShutdown()
		return nil, fmt.Errorf("NATS on %s did not start within 10s", cfg.Listen)
	}
	return &Server{s: s}, nil
}

func splitHostPort(hp string) (string, int, error) {
	h, p, err := net.SplitHostPort(hp)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		return "", 0, fmt.Errorf("port %q is not a port number", p)
	}
	return h, n, nil
}

// URL is the address clients connect to.
func (s *Server) URL() string { return s.s.ClientURL() }

// Close shuts the server down and waits until it has.
func (s *Server) Close() {
	s.s.Shutdown()
	s.s.WaitForShutdown()
}
