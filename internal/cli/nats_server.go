package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/atomic-agent/atomic/internal/helperbin"
)

// natsServerName is the program that holds `atomic nats`'s embedded
// server (cmd/atomic-nats). Linked into atomic, nats-server cost every
// Atomic process ~5 MB of memory and the binary 13 MB, for a command most
// runs never use.
const natsServerName = "atomic-nats"

// runNATS runs atomic-nats with args in this process's place.
func runNATS(ctx context.Context, args []string, ios IOStreams) int {
	path, err := helperbin.Find(natsServerName, os.Executable, exec.LookPath)
	if err != nil {
		fmt.Fprintf(ios.Err, "atomic nats: the NATS server is %v\n", err)
		return 1
	}
	return execNATS(ctx, path, args, ios)
}
