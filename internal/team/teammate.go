package team

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/spawn"
)

// stopKind says why a teammate's context was cancelled.
type stopKind int

const (
	stopNone stopKind = iota
	// stopForced: the user or team_delete stopped it.
	stopForced
	// stopInterrupt: an interrupt, reset, model switch or quit.
	stopInterrupt
)

// mate is one running teammate: its session, its goroutine's wake-up
// channel and what it has been asked to do.
type mate struct {
	name, role, id, team string
	sessionID            string
	typ                  spawn.Type
	prompt               string
	session              backend.Session
	// cli is set for a teammate an external CLI runs: it cannot call the
	// messaging tools, so each turn's answer goes to the lead.
	cli    bool
	cancel context.CancelFunc
	wake   chan struct{} // buffered 1: a message or a shutdown request
	done   chan struct{} // closed after the final status

	mu       sync.Mutex
	shutdown bool // finish the current turn, then end
	stop     stopKind
}

func (t *mate) ended() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// leaving reports whether the teammate was asked to end (shutdown
// request, stop, interrupt): it takes no new messages.
func (t *mate) leaving() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.shutdown || t.stop != stopNone
}

func (t *mate) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// deliver queues a message for the teammate's next model request and wakes
// it if idle.
func (t *mate) deliver(text string) {
	t.session.Deliver(text)
	t.signal()
}

func (t *mate) requestShutdown() {
	t.mu.Lock()
	t.shutdown = true
	t.mu.Unlock()
	t.signal()
}

func (t *mate) shutdownRequested() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.shutdown
}

// halt cancels the teammate's context; the first reason given sticks.
func (t *mate) halt(k stopKind) {
	t.mu.Lock()
	if t.stop == stopNone {
		t.stop = k
	}
	t.mu.Unlock()
	t.cancel()
}

func (t *mate) stopKind() stopKind {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stop
}

// run is the teammate's goroutine: a turn on the spawn prompt, then, until
// it is shut down, stopped or fails: idle, wait for a message, a turn.
func (m *Manager) run(ctx context.Context, t *mate) {
	defer m.wg.Done()
	defer close(t.done)
	defer t.session.Close()
	defer t.cancel()
	final, errText := m.loop(ctx, t)
	// Nothing it started outlives it: its shells end interrupted before
	// its own end is reported.
	m.cfg.Shells.StopOwnedBy(t.id, "its agent ended")
	if final == Error {
		// The lead hears of the failure before the count goes down, so
		// it can never complete without having been told.
		m.cfg.DeliverToLead(fmt.Sprintf("<team-notification>\nTeammate %s (%s) failed and has ended: %s\n</team-notification>",
			t.name, t.role, errText))
	}
	m.setStatus(t, final, errText)
}

// loop runs turns until the teammate ends and returns its final status.
func (m *Manager) loop(ctx context.Context, t *mate) (Status, string) {
	prompt := t.prompt
	for {
		m.setStatus(t, Working, "")
		res, err := runTurn(ctx, t.id, t.session, prompt)
		prompt = ""
		if err == nil && t.cli && strings.TrimSpace(res.Text) != "" {
			m.send(t.name, event.LeadID, res.Text)
		}
		switch {
		case err != nil && ctx.Err() != nil:
			return Interrupted, ""
		case err != nil:
			return Error, err.Error()
		case t.shutdownRequested():
			return Shutdown, ""
		case t.session.Pending():
			continue // a message came as the turn ended: answer it now
		}
		m.setStatus(t, Idle, "")
		for !t.session.Pending() {
			select {
			case <-t.wake:
			case <-ctx.Done():
				if t.stopKind() == stopInterrupt {
					return Interrupted, ""
				}
				return Shutdown, ""
			}
			if t.shutdownRequested() {
				return Shutdown, ""
			}
		}
	}
}

// runTurn runs one turn of the session; a panic becomes an error.
func runTurn(ctx context.Context, id string, s backend.Session, prompt string) (res *backend.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("teammate %s panicked: %v", id, p)
		}
	}()
	res, err = s.Run(ctx, prompt)
	if err == nil && res == nil {
		err = errors.New("the session returned no result")
	}
	return res, err
}
