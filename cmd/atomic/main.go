// Command atomic is a terminal coding agent with parallel sub-agents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/atomic-agent/atomic/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.System())
	stop()
	os.Exit(code)
}
