//go:build unix

package cli

import (
	"context"
	"fmt"
	"os"
	"syscall"
)

// execNATS replaces this process with atomic-nats: one process, which
// gets the signals and exits with its own status.
func execNATS(_ context.Context, path string, args []string, ios IOStreams) int {
	err := syscall.Exec(path, append([]string{path}, args...), os.Environ())
	fmt.Fprintf(ios.Err, "atomic nats: running %s: %v\n", path, err)
	return 1
}
