package subagent

import (
	"context"
	"strings"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/tools"
)

// liveSession is a native task's session and the channel that wakes it
// when one of its background shells exits.
type liveSession struct {
	s    backend.Session
	wake chan struct{}
}

// liveFor makes s the session t's shells wake, and returns its channel.
func (m *Manager) liveFor(t *Task, s backend.Session) chan struct{} {
	l := &liveSession{s: s, wake: make(chan struct{}, 1)}
	t.live.Store(l)
	return l.wake
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

// carryShells keeps a native sub-agent going after its answer while its
// background shells run: each exit delivers the shell's status and output
// and gives it a turn; it ends once nothing is delivered and no shell of
// its own runs. Its last answer is its result.
func (m *Manager) carryShells(ctx context.Context, t *Task, s backend.Session, wake <-chan struct{}, res *backend.Result, err error) (*backend.Result, error) {
	for err == nil {
		if s.Pending() {
			var r *backend.Result
			if r, err = s.Run(ctx, ""); r != nil && strings.TrimSpace(r.Text) != "" {
				res = r
			}
			continue
		}
		if m.cfg.Shells.Running(t.ID) == 0 {
			break
		}
		select {
		case <-wake:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}
