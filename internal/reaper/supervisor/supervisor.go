// Package supervisor runs the watchdog of package reaper from its init,
// when this process is one, before most of Atomic is initialised: the
// watchdog never spends the CPU and memory of initialising what it does not
// use. In any other process it lets reaper.Guard start a watchdog (this
// binary re-executed) when Atomic starts its first child process.
//
// Only cmd/atomic imports this package: a test binary is not the atomic
// binary, so it must never be started as a watchdog.
package supervisor

import "github.com/atomic-agent/atomic/internal/reaper"

func init() {
	reaper.RunWatchdog()
	reaper.Enable()
}
