package team

import "github.com/atomic-agent/atomic/internal/tools"

// ShellEnded tells teammate e.Parent that its background shell exited:
// the notice is queued for its next turn (dropped if bash_output told it
// meanwhile) and an idle teammate is woken to read it. It reports false
// when no live teammate has that id.
func (m *Manager) ShellEnded(e tools.ShellEnded) bool {
	t := m.mateWithID(e.Parent)
	if t == nil || t.ended() {
		return false
	}
	text := e.Notice()
	t.session.DeliverLazy(func() (string, bool) { return text, e.Claim() }, func() bool { return !e.Claimed() })
	t.signal()
	return true
}
