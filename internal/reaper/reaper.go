// Package reaper makes sure no process Atomic starts outlives it, however
// Atomic ends: a signal it handles, a closed terminal, or SIGKILL.
//
// On Linux the atomic command runs as two processes. The outer one, the
// process the user started, is a thin supervisor: it re-executes the binary
// as its only child and forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to it.
// It does so from the init of package reaper/supervisor, before the rest of
// Atomic is initialised, so the supervisor adds little to Atomic's start.
// Both are child subreapers (PR_SET_CHILD_SUBREAPER), so a process that
// leaves its parent (a background job, a double fork, setsid) is adopted by
// the inner process while it lives and by the outer one after that, never by
// the system's init. The inner process kills every descendant when it
// exits; the outer one kills whatever the inner left (after a crash or a
// SIGKILL of the inner) and exits with the inner's status. If the outer
// process is SIGKILLed, the kernel sends the inner one SIGTERM
// (PR_SET_PDEATHSIG), which ends it like any interrupt.
//
// What remains possible: SIGKILL of both processes at once (kill -9 of the
// whole process group) leaves the children the inner process had, because
// nothing of Atomic is left to end them. ATOMIC_SINGLE_PROCESS=1 skips the
// supervisor (for debuggers and tracers); a SIGKILL then leaves children too.
package reaper

import "strings"

// Environment variables.
const (
	// EnvInner marks the re-executed inner process, so it does not
	// re-execute again.
	EnvInner = "ATOMIC_REAPER_INNER"
	// EnvSingleProcess, set to 1, runs Atomic as one process.
	EnvSingleProcess = "ATOMIC_SINGLE_PROCESS"
)

// StartsAgents reports whether args (without the program name) run the
// chat UI, atomic run or atomic acp, the commands that start agents and so run under
// the supervisor.
func StartsAgents(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "run", "acp", "worker":
		return true
	case "help", "-h", "--help", "--version":
		return false
	}
	return strings.HasPrefix(args[0], "-")
}

// ShouldSupervise reports whether this process should become the outer
// supervisor: it is not the inner process already, and the user did not
// opt out.
func ShouldSupervise(getenv func(string) string) bool {
	return supported && getenv(EnvInner) == "" && getenv(EnvSingleProcess) != "1"
}
