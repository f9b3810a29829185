package subagent

import (
	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/tools"
)

// liveSession is a native task's session and the channel that wakes it
// when one of its background shells exits.
type liveSession struct {
	s    backend.Session
	wake chan struct{}
}

// ShellEnded tells sub-agent e.Parent that its background shell exited:
// the notice is queued for its next turn (dropped if bash_output told it
// meanwhile) and its session, waiting for its shells, is woken. It
// reports false when no running sub-agent has that id.
func (m *Manager) ShellEnded(e tools.ShellEnded) bool {
	t, ok := m.Get(e.Parent)
	if !ok {
		return false
	}
	l := t.live.Load()
	if l == nil {
		return false
	}
	text := e.Notice()
	l.s.DeliverLazy(func() (string, bool) { return text, e.Claim() }, func() bool { return !e.Claimed() })
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return true
}

// shellsRunning reports whether a background shell t started still runs
// (its record may lag the process by an event).
func (m *Manager) shellsRunning(id string) bool {
	return m.cfg.Shells != nil && m.cfg.Shells.Running(id) > 0
}
