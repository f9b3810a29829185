// Command atomic-nats is `atomic nats`: a NATS server with JetStream in
// one process, for trying remote workers (atomic worker) on one machine or
// a LAN without installing NATS. It is a program of its own so that atomic
// does not link nats-server (see package embedded); `atomic nats` runs it
// in its place. `go install ./cmd/...` installs both.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/atomic-agent/atomic/internal/observe"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
)

const synopsis = `Usage: atomic nats --listen HOST:PORT [--store DIR]

Runs a NATS server with JetStream in this process, for trying remote
workers (atomic worker) on one machine or a LAN without installing NATS.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run serves until ctx ends and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("atomic nats", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported here, in one line
	var listen, store string
	fs.StringVar(&listen, "listen", "127.0.0.1:4222", "client address `HOST:PORT`")
	fs.StringVar(&store, "store", "", "JetStream data `DIR` (default: nats/ under the state dir, $XDG_STATE_HOME/atomic)")
	err := fs.Parse(args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stdout, "%s\nFlags:\n", strings.TrimRight(synopsis, "\n")+"\n")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "atomic nats: %v (run 'atomic nats --help' for the flags)\n", err)
		return 2
	}
	if store == "" {
		dir, err := observe.StateDir(getenv)
		if err != nil {
			fmt.Fprintf(stderr, "atomic nats: %v (give --store)\n", err)
			return 2
		}
		store = filepath.Join(dir, "nats")
	}
	srv, err := embedded.StartServer(embedded.ServerConfig{Listen: listen, Store: store, Log: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "atomic nats: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "nats listening on %s (JetStream data in %s)\n", srv.URL(), store)
	<-ctx.Done()
	srv.Close()
	return 0
}
