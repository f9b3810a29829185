package subagent

import (
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/tools"
)

// progressSink passes a sub-agent's events on and turns its tool starts
// into subagent.update progress events naming the current tool (the bus
// fills in the tool uses and usage the reducer counted).
type progressSink struct {
	m   *Manager
	t   *Task
	set *tools.Set
	// wake is set for a sub-agent an external CLI runs: it is signalled
	// when the CLI may have a turn to carry or one of its own sub-agents
	// ended (runBackend waits on it).
	wake chan struct{}
}

func (p *progressSink) Emit(e event.Event) {
	if e.Type == event.SubagentStart && e.AgentID != p.t.ID && e.AgentID != "" {
		p.m.registerChild(p.t, e) // one of a CLI session's own sub-agents
	}
	p.m.cfg.Sink.Emit(e)
	if p.wake != nil && wakeOn(e.Type) {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	if e.AgentID != p.t.ID {
		return
	}
	if d, ok := e.Data.(event.ToolStartData); ok {
		// The tool runs once tool.start is out: an isolated agent's tools
		// wait here for its worktree's files (a failed fill cancels it).
		_ = p.t.awaitFilled()
		cur := d.Name
		if tl, ok := p.set.Get(d.Name); ok {
			if sj, ok := tl.(tools.Subjecter); ok {
				if s := sj.Subject(d.Input); s != "" {
					cur += " " + s
				}
			}
		}
		p.t.mu.Lock()
		p.t.currentTool = cur
		p.t.mu.Unlock()
		p.m.update(p.t, "")
	}
}
