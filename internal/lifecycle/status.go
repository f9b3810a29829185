// Package lifecycle is the sub-agent lifecycle reducer of SPEC §2: a pure
// function from events to agent records. The TUI, the headless output and the
// tests all derive sub-agent status from it, so views hold no status logic.
//
// Nothing here does I/O, starts goroutines or reads the clock: time comes from
// each event's Time, and "now" is supplied by the caller.
package lifecycle

// Status is a sub-agent's lifecycle status; the string is its wire name.
type Status string

// The statuses of SPEC §2.
const (
	// Pending: created, waiting for a concurrency slot.
	Pending Status = "pending"
	// Running: a sync agent at work.
	Running Status = "running"
	// Background: a background agent, spawned and not yet finished.
	Background Status = "background"
	// Waiting: the agent's turn ended (or its end came) while work it
	// started still runs; it is woken by each result (SPEC §2, depth).
	Waiting Status = "waiting"
	// Completed: finished successfully (terminal).
	Completed Status = "completed"
	// Error: failed (terminal).
	Error Status = "error"
	// Interrupted: cancelled by the user, a reset or a cancel (terminal).
	Interrupted Status = "interrupted"
)

// Terminal reports whether s is final: completed, error or interrupted. No
// event moves a record out of a terminal status.
func (s Status) Terminal() bool {
	return s == Completed || s == Error || s == Interrupted
}

// Active reports whether s is work still under way: pending, running,
// background or waiting.
func (s Status) Active() bool {
	return s == Pending || s == Running || s == Background || s == Waiting
}

// numStatuses is the number of statuses; index gives each a slot in [0,n).
const numStatuses = 7

// index returns s's display rank, which is also its slot in count arrays:
// running, pending, background, waiting, completed, interrupted, error. Unknown
// statuses (never produced by the reducer) rank last with error.
func (s Status) index() int {
	switch s {
	case Running:
		return 0
	case Pending:
		return 1
	case Background:
		return 2
	case Waiting:
		return 3
	case Completed:
		return 4
	case Interrupted:
		return 5
	default:
		return 6
	}
}
