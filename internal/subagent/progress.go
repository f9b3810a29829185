package subagent

import (
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/tools"
)

// progressSink passes a sub-agent's events on and turns its tool starts and
// usage into subagent.update progress events.
type progressSink struct {
	m   *Manager
	t   *Task
	set *tools.Set
	// wake is set for a sub-agent an external CLI runs: it is signalled
	// when the CLI may have a turn to carry or one of its own sub-agents
	// ended (runBackend waits on it).
	wake chan struct{}
	// meter: the events come from elsewhere (a CLI, a remote worker), so
	// their usage is added to the meter here.
	meter bool
}

func (p *progressSink) Emit(e event.Event) {
	if p.wake != nil || p.meter {
		e = p.m.cfg.Meter.External(e)
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
	switch d := e.Data.(type) {
	case event.ToolStartData:
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
		p.t.toolUses++
		p.t.currentTool = cur
		p.t.mu.Unlock()
		p.m.update(p.t, "")
	case event.UsageUpdateData:
		p.t.mu.Lock()
		p.t.usage = d.Usage
		p.t.mu.Unlock()
		p.m.update(p.t, "")
	}
}
