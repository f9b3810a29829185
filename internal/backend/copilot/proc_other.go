//go:build !linux

package copilot

import "time"

// Without /proc the processes carrying a session's mark cannot be listed
// (reading another process's environment takes a per-system API), so
// these say what is lost: the CLI's pid stays unknown, a CLI that dies
// during a turn is noticed only when the turn's context ends, and Close
// ends just what the SDK's Stop and ForceStop end (the CLI, not its
// children).

// markEnv names the variable that marks every process of one session
// (see proc_linux.go); it is set here too, for the CLI's own use.
const markEnv = "ATOMIC_COPILOT_SESSION"

// marked lists no process: they cannot be found here.
func marked(string) []int { return nil }

// cliPid is 0: the CLI's process cannot be found here.
func cliPid(string) int { return 0 }

// killMarked ends nothing and reports nothing left, as marked finds none.
func killMarked(string, time.Duration) []int { return nil }

// cliGone is false: with the pid unknown the watch cannot tell, and
// reporting the CLI dead would fail every turn.
func cliGone(int) bool { return false }
