package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
)

// execNATS runs atomic-nats as a child (Windows cannot replace a
// process), ended when ctx is.
func execNATS(ctx context.Context, path string, args []string, ios IOStreams) int {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = ios.In, ios.Out, ios.Err
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil || ctx.Err() != nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	fmt.Fprintf(ios.Err, "atomic nats: running %s: %v\n", path, err)
	return 1
}
