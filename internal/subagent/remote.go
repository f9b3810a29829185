package subagent

import (
	"context"
	"errors"
	"fmt"

	"github.com/atomic-agent/atomic/internal/agent"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/worktree"
)

// remote reports whether t runs on a remote worker.
func (m *Manager) remote(t *Task) bool {
	return m.cfg.Remote != nil && m.cfg.Remote.Takes(t.Type)
}

// runRemote sends t to the workers and waits for its result. The worker's
// events reach the bus through t's progress sink as a local agent's do;
// subagent.start goes out when a worker takes the task, naming it, and a
// task a second worker takes over says so on its row. Changed files come
// back as a patch, committed on the agent's branch as an isolated local
// agent's are (merge_worktree).
func (m *Manager) runRemote(ctx context.Context, t *Task) (*agent.Result, error) {
	sink := &progressSink{m: m, t: t, set: m.cfg.Tools}
	task := remote.Task{ID: t.ID, SessionID: t.SessionID, ParentID: t.Spec.ParentID, ToolCallID: t.Spec.ToolCallID,
		AgentType: t.Type.Name, Description: t.Spec.Description, Prompt: t.Spec.Prompt, System: t.Type.Prompt,
		Tools: t.Type.Tools}
	res, err := m.cfg.Remote.Run(ctx, task, remote.Hooks{
		Sink: sink,
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
	})
	if err != nil {
		return nil, err
	}
	if !res.Success {
		return nil, errors.New(res.Error)
	}
	if res.Patch != "" {
		if err := m.branch(ctx, t, res.Patch); err != nil {
			return nil, fmt.Errorf("the agent's changes on %s could not be kept: %w", res.Worker, err)
		}
	}
	return &agent.Result{Text: res.Text, Usage: res.Usage, Turns: res.Turns}, nil
}

// branch puts a remote agent's patch on a worktree of its own, which
// finish then commits on its branch as for a local isolated agent.
func (m *Manager) branch(ctx context.Context, t *Task, name string) error {
	patch, err := m.cfg.Remote.Patch(ctx, name)
	if err != nil {
		return err
	}
	if m.cfg.Workspace == "" {
		return errors.New("this run has no workspace to keep them in")
	}
	tree, err := worktree.Create(ctx, m.cfg.Workspace, t.ID, t.Spec.Description)
	if err != nil {
		return err
	}
	if err := tree.Apply(ctx, patch); err != nil {
		_ = tree.Remove(ctx)
		return err
	}
	filled := make(chan struct{})
	close(filled)
	t.mu.Lock()
	t.iso = &isolation{tree: tree, state: WorktreeRunning, filled: filled}
	t.mu.Unlock()
	return nil
}
