// Package embedded is the NATS server with JetStream that `atomic nats`
// runs in process. Only the atomic-nats program links it: nats-server
// costs the atomic binary 13 MB and every Atomic process ~5 MB of memory
// (its package initialisation and the pages that touches), for a command
// most runs never use.
package embedded

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"sync"
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
	// Log, when set, gets the server's warnings and errors, one a line.
	// Whether or not it is, a server that does not start says why in
	// StartServer's error.
	Log io.Writer
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
	logs := &serverLog{w: cfg.Log, fatal: make(chan struct{})}
	s.SetLogger(logs, false, false)
	s.Start()
	// A fatal error (the port is taken, the store cannot be written)
	// ends the wait at once, with the server's own words.
	for deadline := time.Now().Add(startWait); !s.ReadyForConnections(50 * time.Millisecond); {
		select {
		case <-logs.fatal:
		default:
			if time.Now().Before(deadline) {
				continue
			}
		}
		s.Shutdown()
		s.WaitForShutdown()
		if why := logs.lastError(); why != "" {
			return nil, fmt.Errorf("NATS on %s did not start: %s", cfg.Listen, why)
		}
		return nil, fmt.Errorf("NATS on %s did not start within %s", cfg.Listen, startWait)
	}
	return &Server{s: s}, nil
}

// startWait is how long StartServer waits for the server to take
// connections.
const startWait = 10 * time.Second

// serverLog is the embedded server's logger: warnings and errors go to w
// (if any), the last error is kept, and a fatal one is signalled (the
// server's own loggers would exit the process).
type serverLog struct {
	w       io.Writer
	mu      sync.Mutex
	last    string
	fatal   chan struct{}
	fatalMu sync.Once
}

func (l *serverLog) line(level, format string, v ...any) string {
	msg := fmt.Sprintf(format, v...)
	if l.w != nil {
		l.mu.Lock()
		fmt.Fprintf(l.w, "nats: %s%s\n", level, msg)
		l.mu.Unlock()
	}
	return msg
}

func (l *serverLog) keep(msg string) {
	l.mu.Lock()
	l.last = msg
	l.mu.Unlock()
}

func (l *serverLog) lastError() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

func (l *serverLog) Noticef(string, ...any)        {}
func (l *serverLog) Debugf(string, ...any)         {}
func (l *serverLog) Tracef(string, ...any)         {}
func (l *serverLog) Warnf(format string, v ...any) { l.line("warning: ", format, v...) }
func (l *serverLog) Errorf(format string, v ...any) {
	l.keep(l.line("error: ", format, v...))
}
func (l *serverLog) Fatalf(format string, v ...any) {
	l.keep(l.line("fatal: ", format, v...))
	l.fatalMu.Do(func() { close(l.fatal) })
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
