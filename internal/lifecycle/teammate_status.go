package lifecycle

// TeammateStatus is a teammate's status; the string is its wire name in
// teammate.status events. Teammates are agents of the same reducer as
// sub-agents, with statuses of their own: a teammate lives on between turns.
type TeammateStatus string

// The teammate statuses. Spawning, working, idle and waiting are active: the lead
// does not complete while any teammate is in one of them. Error, shutdown
// and interrupted are terminal: a teammate never leaves them (a new
// teammate of the same name is a new incarnation, starting with spawning).
const (
	// MateSpawning: the teammate exists and its session is starting.
	MateSpawning TeammateStatus = "spawning"
	// MateWorking: the teammate's model is in a turn.
	MateWorking TeammateStatus = "working"
	// MateIdle: the teammate finished a turn and waits for a message. It
	// is alive: a message wakes it.
	MateIdle TeammateStatus = "idle"
	// MateWaiting: the teammate finished a turn while agents or shells it
	// started still run; their results wake it. The reducer derives it
	// from an idle teammate's descendants (nest.go), as it does an
	// agent's waiting.
	MateWaiting TeammateStatus = "waiting"
	// MateError: the teammate's session failed (provider failure, panic,
	// turn limit) and ended.
	MateError TeammateStatus = "error"
	// MateShutdown: the teammate ended on request (shutdown_request, a
	// stop while idle, team_delete).
	MateShutdown TeammateStatus = "shutdown"
	// MateInterrupted: the teammate was cut off mid-turn (interrupt,
	// reset, model switch, a forced stop while working).
	MateInterrupted TeammateStatus = "interrupted"
)

// Active reports whether s is a live teammate: spawning, working, idle or
// waiting.
func (s TeammateStatus) Active() bool {
	return s == MateSpawning || s == MateWorking || s == MateIdle || s == MateWaiting
}

// Terminal reports whether s is final: error, shutdown or interrupted.
func (s TeammateStatus) Terminal() bool {
	return s == MateError || s == MateShutdown || s == MateInterrupted
}

// Valid reports whether s is one of the statuses above.
func (s TeammateStatus) Valid() bool { return s.Active() || s.Terminal() }
