package team

import "github.com/atomic-agent/atomic/internal/lifecycle"

// Status is a teammate's status: the lifecycle reducer's teammate status,
// the one state every view reads.
type Status = lifecycle.TeammateStatus

// The teammate statuses (see lifecycle.TeammateStatus).
const (
	Spawning    = lifecycle.MateSpawning
	Working     = lifecycle.MateWorking
	Idle        = lifecycle.MateIdle
	Waiting     = lifecycle.MateWaiting
	Error       = lifecycle.MateError
	Shutdown    = lifecycle.MateShutdown
	Interrupted = lifecycle.MateInterrupted
)
