package runtime

import (
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/tools"
)

// newShells is the run's background shells: their events go to the bus,
// each is registered with the owners (so /tasks stops it and the
// completion gate waits for it), and each that exits wakes its starter.
func (r *Runtime) newShells() *tools.Shells {
	return tools.NewShells(tools.ShellsConfig{
		SessionID: r.cfg.SessionID, Sink: r.bus, Now: r.cfg.Now,
		Register: func(id, parent string, stop func() error, done <-chan struct{}) {
			r.owners.Register(id, bus.Owner{Kind: bus.OwnerShells, Done: done, Cancel: func() error {
				r.inBackground(func() { _ = stop() }) // a cancel must not wait for the end
				return nil
			}})
		},
		Ended: r.onShellEnd,
	})
}

// onShellEnd tells a shell's starter that it exited, exactly once (a
// bash_output that saw the end first makes the notice moot): a sub-agent
// through its manager, which wakes it where it waits for its shells; a
// teammate through the team, waking it if idle; the lead in its inbox,
// waking it if idle. One whose agent has ended tells nobody (bash_output
// still reads it).
func (r *Runtime) onShellEnd(e tools.ShellEnded) {
	if e.Parent != event.LeadID {
		if !r.mgr.ShellEnded(e) {
			r.team.ShellEnded(e)
		}
		return
	}
	text := e.Notice()
	r.notifyLead(e.ID, text, e.Claim, e.Claimed, e.OnClaim)
	r.signal()
}

// stopShells stops every running shell without waiting (an interrupt,
// reset or model switch must not block on a process's end); Close waits.
func (r *Runtime) stopShells(why string) {
	r.inBackground(func() { r.shells.StopAll(why, false) })
}

// inBackground runs f on a goroutine closeShells waits for.
func (r *Runtime) inBackground(f func()) {
	done := make(chan struct{})
	r.stopMu.Lock()
	r.stops = append(r.stops, done)
	r.stopMu.Unlock()
	go func() {
		defer close(done)
		f()
	}()
}

// closeShells stops every shell, refuses new ones and waits for every
// stop under way.
func (r *Runtime) closeShells() {
	r.shells.StopAll("the run ended", true)
	r.stopMu.Lock()
	stops := r.stops
	r.stops = nil
	r.stopMu.Unlock()
	for _, done := range stops {
		<-done
	}
}
