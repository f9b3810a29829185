package subagent

import (
	"context"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Adopted is an agent this manager did not start (a teammate) that starts
// sub-agents through it, one level below the lead like the lead's own.
type Adopted struct {
	m    *Manager
	id   string
	nest *nesting
}

// Adopt lets agent id start sub-agents: it adds task to set, and holds
// the companions there until id starts a background task. Its children
// live under ctx (stopping id stops them) and, below the depth limit,
// nest in turn; a background child's end is delivered to id's session
// (Attach) and wakes it through wake. Release it when id ends. Nil when
// the depth limit leaves no room below level 1.
func (m *Manager) Adopt(ctx context.Context, id string, set *tools.Set, wake chan struct{}) *Adopted {
	if m.cfg.MaxDepth < 2 {
		return nil
	}
	n := &nesting{depth: 1, ctx: ctx, offer: set, wake: wake}
	set.Add(NewTaskTool(m))
	for _, tool := range []tools.Tool{NewCheckTask(m), NewWaitForTask(m), NewListTasks(m), NewCancelTask(m)} {
		set.Hold(tool)
	}
	m.mu.Lock()
	if m.adopted == nil {
		m.adopted = map[string]*nesting{}
	}
	m.adopted[id] = n
	m.mu.Unlock()
	return &Adopted{m: m, id: id, nest: n}
}

// Attach gives the adopted agent's session, which its background
// children's results are delivered to.
func (a *Adopted) Attach(s backend.Session) {
	if a != nil {
		a.nest.sess.Store(&s)
	}
}

// Release forgets the adopted agent: it ended (its children were stopped
// with its context).
func (a *Adopted) Release() {
	if a == nil {
		return
	}
	a.nest.sess.Store(nil)
	a.m.mu.Lock()
	if a.m.adopted[a.id] == a.nest {
		delete(a.m.adopted, a.id)
	}
	a.m.mu.Unlock()
}
