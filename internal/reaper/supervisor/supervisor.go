// Package supervisor makes the atomic command its own supervisor (see
// package reaper) from its init, before the rest of Atomic is initialised:
// the inner process, which does the work and starts the agents' CLIs, is
// started about as soon as the runtime is up instead of after every
// package's initialisation, and the supervisor never spends the CPU of
// initialising what it does not use. The init does not return in the
// supervisor: it exits with the inner process's status.
//
// Only cmd/atomic imports this package. A test binary must not: its flags
// start with "-", which reads as the chat UI's.
package supervisor

import (
	"os"

	"github.com/atomic-agent/atomic/internal/reaper"
)

func init() {
	args := os.Args[1:]
	if !reaper.StartsAgents(args) || !reaper.ShouldSupervise(os.Getenv) {
		return
	}
	if code, ok := reaper.Supervise(args); ok {
		os.Exit(code)
	}
}
