package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/spawn"
)

// runSession opens t's session through spawn and runs it on the task
// prompt; a panic becomes an error. What differs by backend is only what
// the session is given and what is left after its answer: a CLI's own
// sub-agents still open (carry), a worker's changes (keepPatch).
func (m *Manager) runSession(ctx context.Context, t *Task, plan spawn.Plan) (res *backend.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("sub-agent %s panicked: %v", t.ID, p)
		}
	}()
	spec, prompt, wake, err := m.specOf(t, plan)
	if err != nil {
		return nil, err
	}
	s, err := m.open.Open(plan, spec)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if plan.External() {
		t.cli.Store(&s)
		defer t.cli.Store(nil)
	}
	native := !plan.External() && plan.Backend != spawn.Remote
	if m.cfg.Shells != nil && native {
		defer m.cfg.Shells.StopOwnedBy(t.ID, "its agent ended") // before its subagent.complete
	}
	if t.nest.offer != nil || (m.cfg.Shells != nil && native) {
		// It may start agents or shells of its own: their ends are
		// delivered to its session and wake it.
		wake = make(chan struct{}, 1)
		if t.nest.offer != nil {
			t.nest.wake = wake
			t.nest.sess.Store(&s)
			defer t.nest.sess.Store(nil)
		}
		if m.cfg.Shells != nil && native {
			t.live.Store(&liveSession{s: s, wake: wake})
			defer t.live.Store(nil)
		}
	}
	turn := func(prompt string) (*backend.Result, error) {
		res, err := s.Run(ctx, prompt)
		if wake != nil {
			res, err = m.carry(ctx, t, s, wake, res, err)
		}
		return res, err
	}
	if ownHooks(plan) {
		res, err = turn(prompt)
	} else {
		res, err = turn(m.startHook(ctx, t, prompt))
		if err == nil {
			res, err = m.stopHook(ctx, t, plan, res, turn)
		}
	}
	if rs, ok := s.(*spawn.RemoteSession); ok && err == nil {
		err = m.keepPatch(ctx, t, rs.Result())
	}
	if err == nil && res == nil {
		err = errors.New("the session returned no result")
	}
	return res, err
}

// specOf is what t's session is given: who it is, where its events go, its
// system prompt (a native agent's) or the instructions its prompt starts
// with (a CLI's), and where it works. wake is signalled for a CLI when it
// may have a turn to carry or one of its own sub-agents ended.
func (m *Manager) specOf(t *Task, plan spawn.Plan) (spec spawn.Spec, prompt string, wake chan struct{}, err error) {
	spec = spawn.Spec{SessionID: t.SessionID, AgentID: t.ID, ParentID: t.Spec.ParentID, ToolCallID: t.Spec.ToolCallID,
		Name: t.Type.Name, Sink: m.cfg.Sink, History: t.Spec.History}
	prompt = t.Spec.Prompt
	switch {
	case plan.Backend == spawn.Remote:
		spec.Sink = &childSink{m: m, t: t} // a worker's CLI task starts agents of its own
		spec.Remote = spawn.RemoteSpec{Description: t.Spec.Description, Hooks: m.remoteHooks(t)}
	case plan.External():
		// Given only the task prompt, after the type's own instructions;
		// an isolated CLI works in its worktree once its files are there.
		wake = make(chan struct{}, 1)
		spec.Sink = &childSink{m: m, t: t, wake: wake}
		if p := strings.TrimSpace(t.Type.Prompt); p != "" {
			prompt = p + "\n\n" + prompt
		}
		if tree := t.tree(); tree != nil {
			spec.Workspace = tree.Root
			if err := t.awaitFilled(); err != nil {
				return spec, "", nil, err
			}
		}
	default:
		spec.System = m.cfg.System
		if t.Type.Prompt != "" {
			spec.System = strings.TrimSpace(spec.System + "\n\n" + t.Type.Prompt)
		}
		if tree := t.tree(); tree != nil {
			// In the task, not the system prompt: siblings in worktrees
			// of their own then share one system prompt, and its cache.
			prompt = worktreePrompt(tree) + "\n\n" + prompt
			spec.Sink = filledSink{t: t, next: m.cfg.Sink}
		}
	}
	return spec, prompt, wake, nil
}

// carry keeps a sub-agent going after its first answer: it ends once the
// session has no turn to carry (a CLI's own, a result delivered to it)
// and none of its own sub-agents or background shells is still open, so
// its background work is never cut off. While it waits its row is waiting (subagent.update idle)
// and its slot is given back; each child's end wakes it.
func (m *Manager) carry(ctx context.Context, t *Task, s backend.Session, wake <-chan struct{}, res *backend.Result, err error) (*backend.Result, error) {
	idle := false
	for err == nil {
		if s.Pending() {
			if idle {
				idle = false
				if err = t.nest.unblock(ctx); err != nil {
					break
				}
				m.emitIdle(t, false)
			}
			var r *backend.Result
			if r, err = s.Run(ctx, ""); r != nil && strings.TrimSpace(r.Text) != "" {
				res = r
			}
			continue
		}
		if !m.openChildren(t.ID) && !m.shellsRunning(t.ID) {
			break
		}
		if !idle {
			idle = true
			m.emitIdle(t, true)
			t.nest.block()
		}
		select {
		case <-wake:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if idle {
		t.nest.leave() // it ends: no slot to take again
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// remoteHooks tell t's row which worker took it: subagent.start goes out
// when a worker takes the task, naming it, a task a second worker takes
// over says so, and one a stopping worker gave back waits again.
func (m *Manager) remoteHooks(t *Task) remote.Hooks {
	return remote.Hooks{
		Claimed: func(worker string, n int, before string) {
			t.mu.Lock()
			t.worker, t.note = worker, ""
			if before != "" {
				t.note = "restarted on " + worker
			}
			t.mu.Unlock()
			if t.started.CompareAndSwap(false, true) {
				m.emitStart(t)
			}
			m.update(t, "")
		},
		Note: func(note string) {
			t.mu.Lock()
			t.note = note
			t.mu.Unlock()
			m.update(t, "")
		},
		// Its worker stopped and gave it back: pending until another
		// takes it, however long that is.
		GivenBack: func(worker string) {
			t.mu.Lock()
			t.note = worker + " stopped: waiting for another worker"
			t.mu.Unlock()
			m.update(t, lifecycle.WaitingSlot)
		},
	}
}

// keepPatch commits a worker's changes on t's branch, as an isolated local
// agent's are (merge_worktree).
func (m *Manager) keepPatch(ctx context.Context, t *Task, res remote.Result) error {
	if res.Patch == "" {
		return nil
	}
	if err := m.branch(ctx, t, res.Patch); err != nil {
		return fmt.Errorf("the agent's changes on %s could not be kept: %w", res.Worker, err)
	}
	return nil
}
