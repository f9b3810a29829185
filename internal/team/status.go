package team

// Status is a teammate's status; the string is its wire name in
// teammate.status events.
type Status string

// The teammate statuses. Spawning, working and idle are active: the lead
// does not complete while any teammate is in one of them. Error, shutdown
// and interrupted are terminal: a teammate never leaves them (a new
// teammate of the same name is a new incarnation, starting with spawning).
const (
	// Spawning: the teammate exists and its session is starting.
	Spawning Status = "spawning"
	// Working: the teammate's model is in a turn.
	Working Status = "working"
	// Idle: the teammate finished a turn and waits for a message. It is
	// alive: a message wakes it.
	Idle Status = "idle"
	// Error: the teammate's session failed (provider failure, panic, turn
	// limit) and ended.
	Error Status = "error"
	// Shutdown: the teammate ended on request (shutdown_request, a stop
	// while idle, team_delete).
	Shutdown Status = "shutdown"
	// Interrupted: the teammate was cut off mid-turn (interrupt, reset,
	// model switch, a forced stop while working).
	Interrupted Status = "interrupted"
)

// Active reports whether s is a live teammate: spawning, working or idle.
func (s Status) Active() bool {
	return s == Spawning || s == Working || s == Idle
}

// Terminal reports whether s is final: error, shutdown or interrupted.
func (s Status) Terminal() bool {
	return s == Error || s == Shutdown || s == Interrupted
}

// valid reports whether s is one of the statuses above.
func (s Status) valid() bool { return s.Active() || s.Terminal() }
