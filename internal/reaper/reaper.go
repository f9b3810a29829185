// Package reaper makes sure no process Atomic starts outlives it, however
// Atomic ends: a signal it handles, a closed terminal, or SIGKILL.
//
// On Linux Atomic runs as one process, which costs nothing extra until it
// starts a child process:
//
//   - The process is a child subreaper (PR_SET_CHILD_SUBREAPER, Adopt), so a
//     process that leaves its parent (a background job, a double fork,
//     setsid) is adopted by Atomic rather than by the system's init, and
//     Tree.Close ends every descendant when Atomic exits.
//   - Every child it starts carries a mark in its environment (EnvTree),
//     which its own children inherit, double-forked and setsid ones too.
//   - The first child it starts (Guard) starts the watchdog: the atomic
//     binary re-executed in a process group of its own, which does nothing
//     but wait on a pipe whose other end only Atomic holds. When Atomic
//     ends without saying goodbye on the pipe (SIGKILL, the OOM killer, a
//     crash), the watchdog ends every process that carries Atomic's mark,
//     and their descendants. The watchdog starts from the init of package
//     reaper/supervisor, so it initialises little of Atomic.
//
// A run that never starts a child process (one answer, --help, an argument
// error) so pays for no second process.
//
// What remains possible: a SIGKILL of Atomic and its watchdog at once (kill
// -9 of every process) leaves the children, and so does a SIGKILL of
// Atomic alone for a process that both dropped the mark from its
// environment (env -i) and left its parent, or whose environment cannot be
// read (a set-user-ID program). ATOMIC_SINGLE_PROCESS=1 starts no watchdog
// (for debuggers and tracers); a SIGKILL then leaves children too.
package reaper

import "strings"

// Environment variables.
const (
	// EnvTree marks every process Atomic starts, and so their descendants:
	// the marks (one per nested Atomic) of the Atomic processes above it,
	// separated by ":".
	EnvTree = "ATOMIC_REAPER_TREE"
	// EnvWatch, in the watchdog's environment, is the mark of the Atomic
	// process it watches.
	EnvWatch = "ATOMIC_REAPER_WATCH"
	// EnvSingleProcess, set to 1, runs Atomic without the watchdog.
	EnvSingleProcess = "ATOMIC_SINGLE_PROCESS"
)

// StartsAgents reports whether args (without the program name) run the
// chat UI, atomic run, atomic acp or a worker, the commands that start
// agents and so adopt and end their descendants. Such a command asked
// only for its help (its first flag is -h or --help) starts none.
func StartsAgents(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "run", "acp", "worker":
		return len(args) < 2 || !isHelp(args[1])
	case "help", "-h", "--help", "--version":
		return false
	}
	return strings.HasPrefix(args[0], "-")
}

// isHelp reports whether arg asks a command for its help, as the flag
// package reads it.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "--h", "-help", "--help":
		return true
	}
	return false
}

// marked reports whether environ (NUL-separated, as /proc/PID/environ)
// carries mark among its EnvTree marks.
func marked(environ []byte, mark string) bool {
	for _, kv := range strings.Split(string(environ), "\x00") {
		v, ok := strings.CutPrefix(kv, EnvTree+"=")
		if !ok {
			continue
		}
		for _, m := range strings.Split(v, ":") {
			if m == mark {
				return true
			}
		}
	}
	return false
}
