package subagent

import "github.com/atomic-agent/atomic/internal/event"

// childSink passes on the events of a session that starts sub-agents of
// its own (an external CLI, a task on the workers): each of them is
// registered as t's child. wake, set for a CLI, is signalled when the CLI
// may have a turn to carry or one of its own sub-agents ended (carry waits
// on it). A native agent's events go to the bus directly: its progress is
// its own subagent.update.
type childSink struct {
	m    *Manager
	t    *Task
	wake chan struct{}
}

func (p *childSink) Emit(e event.Event) {
	if e.Type == event.SubagentStart && e.AgentID != p.t.ID && e.AgentID != "" {
		p.m.registerChild(p.t, e)
	}
	p.m.cfg.Sink.Emit(e)
	if p.wake != nil && wakeOn(e.Type) {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// filledSink holds an isolated agent's tools until its worktree's files
// are there: a tool runs once its tool.start is out, so the emit waits
// (a failed fill cancels the agent, and the tool is told so).
type filledSink struct {
	t    *Task
	next event.Sink
}

func (f filledSink) Emit(e event.Event) {
	f.next.Emit(e)
	if e.Type == event.ToolStart && e.AgentID == f.t.ID {
		_ = f.t.awaitFilled()
	}
}
