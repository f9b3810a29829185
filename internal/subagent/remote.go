package subagent

import (
	"context"
	"errors"

	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/worktree"
)

// remote reports whether t runs on a remote worker.
func (m *Manager) remote(t *Task) bool { return t.backend == spawn.Remote }

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
	m.offerFor(t)
	return nil
}
