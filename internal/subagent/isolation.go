package subagent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/tools"
	"github.com/atomic-agent/atomic/internal/worktree"
)

// WorktreeState is where an isolated agent's worktree stands.
type WorktreeState string

// The worktree states.
const (
	// WorktreeRunning: the agent still works in it.
	WorktreeRunning WorktreeState = "running"
	// WorktreeReady: its changes are committed on the branch, not merged.
	WorktreeReady WorktreeState = "ready to merge"
	// WorktreeUnchanged: the agent changed nothing; the worktree is gone.
	WorktreeUnchanged WorktreeState = "unchanged (removed)"
	WorktreeMerged    WorktreeState = "merged"
	WorktreeDiscarded WorktreeState = "discarded"
	// WorktreeLeftover: a changed worktree of an earlier run.
	WorktreeLeftover WorktreeState = "left by an earlier run"
	// WorktreeBroken: committing the agent's changes failed; the worktree
	// is kept as it is for the user.
	WorktreeBroken WorktreeState = "not committed"
)

// Worktree describes one isolated agent's worktree for /worktrees.
type Worktree struct {
	// ID is the agent id (this run) or the branch (a leftover).
	ID     string
	Agent  string
	Task   string
	Branch string
	Path   string
	Stat   string
	State  WorktreeState
}

// isolation is an isolated task's worktree and where it stands; guarded
// by the task's mu.
type isolation struct {
	tree  *worktree.Tree
	state WorktreeState
	stat  string
	// filled is closed when the checkout that fills the tree has ended,
	// fillErr (set before) saying how.
	filled  chan struct{}
	fillErr error
	// fillFailed: the fill failed on its own, not because the task ended
	// first (an agent that answers without a tool does not need it).
	fillFailed bool
}

// fill writes the worktree's files while the agent's first model request
// is under way; the agent's tools wait for it (awaitFilled). A failed
// fill cancels the task: its tools must not run in a partial tree.
func (iso *isolation) fill(ctx context.Context, t *Task) {
	// The checkout runs to its end even when the task is cancelled: a
	// killed git leaves its checkout workers writing into the tree and the
	// worktree's branch held, so the removal at the end could not delete
	// it (it takes a fraction of a second).
	if err := iso.tree.Checkout(context.WithoutCancel(ctx)); err != nil {
		iso.fillErr = err
		if ctx.Err() == nil {
			iso.fillFailed = true
			t.cancel()
		}
	}
	close(iso.filled)
}

// awaitFilled blocks until t's worktree is filled (at once when t is not
// isolated) and reports whether it was.
func (t *Task) awaitFilled() error {
	t.mu.Lock()
	iso := t.iso
	t.mu.Unlock()
	if iso == nil {
		return nil
	}
	<-iso.filled
	return iso.fillErr
}

// isolate gives t its worktree when its call or its type asks for one, and
// returns the tool set rooted there (set otherwise).
func (m *Manager) isolate(ctx context.Context, t *Task, set *tools.Set) (*tools.Set, error) {
	mode := t.Spec.Isolation
	if mode == "" {
		mode = t.Type.Isolation
	}
	if mode == "" {
		return set, nil
	}
	if mode != spawn.Worktree {
		return nil, fmt.Errorf("isolation %q is not supported; the one isolation is %q", mode, spawn.Worktree)
	}
	if m.cfg.Workspace == "" {
		return nil, errors.New("isolation: worktree needs a workspace directory, and this run has none")
	}
	tree, err := worktree.Add(ctx, m.cfg.Workspace, t.ID, t.Spec.Description)
	if err != nil {
		return nil, fmt.Errorf("sub-agent %s: %w", t.ID, err)
	}
	t.mu.Lock()
	t.iso = &isolation{tree: tree, state: WorktreeRunning, filled: make(chan struct{})}
	t.mu.Unlock()
	files := m.cfg.FileTools
	if files == nil {
		files = func(root string) *tools.Set { return tools.Core(tools.Workspace{Root: root}) }
	}
	rooted := files(tree.Root)
	out := tools.NewSet()
	for _, n := range set.Names() {
		tool, _ := set.Get(n)
		if own, ok := rooted.Get(n); ok {
			tool = own
		}
		out.Add(tool)
	}
	return out, nil
}

const unchangedNote = "\n\n---\nWorktree: no files were changed; the worktree was removed."

// worktreePrompt tells an isolated agent where it works.
func worktreePrompt(tree *worktree.Tree) string {
	return fmt.Sprintf("Isolation: you work in a git worktree of your own, %s (branch %s), a copy of the workspace with its uncommitted changes. "+
		"Every file path and command of yours is rooted there, not in the workspace named above; other agents do not see your changes until the lead merges them. "+
		"Do not commit: your changes are committed on your branch when you finish.", tree.Root, tree.Branch)
}

// finishWorktree commits an isolated agent's work on its branch and words
// the result for the lead: branch, diff stat and how to merge.
func (m *Manager) finishWorktree(ctx context.Context, t *Task) string {
	t.mu.Lock()
	iso := t.iso
	t.mu.Unlock()
	if iso == nil {
		return ""
	}
	if err := t.awaitFilled(); err != nil {
		// No tool ran (tools wait for the fill): nothing to keep.
		rmErr := iso.tree.Remove(ctx)
		t.mu.Lock()
		defer t.mu.Unlock()
		iso.state = WorktreeUnchanged
		if rmErr != nil {
			iso.state = WorktreeBroken
		}
		if iso.fillFailed {
			return fmt.Sprintf("\n\n---\nWorktree: %v; no tool of the agent ran, and the worktree was removed.", err)
		}
		return unchangedNote
	}
	out, err := iso.tree.Finish(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err != nil:
		iso.state = WorktreeBroken
		return fmt.Sprintf("\n\n---\nWorktree: committing the changes failed (%v); the worktree is kept as it is at %s.", err, iso.tree.Path)
	case !out.Changed:
		iso.state = WorktreeUnchanged
		return unchangedNote
	}
	iso.state, iso.stat = WorktreeReady, lastLine(out.Stat)
	return fmt.Sprintf("\n\n---\nWorktree: the changes are committed on branch %s (%s), not in your tree yet:\n%s\nMerge them with merge_worktree(task_id: %q), or leave them for the user (/worktrees).",
		iso.tree.Branch, m.relative(iso.tree.Path), out.Stat, t.ID)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.TrimSpace(s[strings.LastIndexByte(s, '\n')+1:])
}

// relative shows p relative to the workspace when inside it.
func (m *Manager) relative(p string) string {
	if rel, err := filepath.Rel(m.cfg.Workspace, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// Worktrees lists the worktrees of this run's isolated agents and the
// changed ones earlier runs left (after clearing their stale records and
// locks), sorted by id.
func (m *Manager) Worktrees(ctx context.Context) ([]Worktree, error) {
	var out []Worktree
	ours := map[string]bool{}
	for _, t := range m.Tasks() {
		t.mu.Lock()
		if iso := t.iso; iso != nil {
			ours[iso.tree.Path] = true
			out = append(out, Worktree{ID: t.ID, Agent: t.ID, Task: t.Spec.Description, Branch: iso.tree.Branch,
				Path: iso.tree.Path, Stat: iso.stat, State: iso.state})
		}
		t.mu.Unlock()
	}
	if m.cfg.Workspace == "" {
		return out, nil
	}
	left, err := worktree.Open(ctx, m.cfg.Workspace)
	if err != nil {
		if len(out) == 0 {
			return nil, nil // not a git repository: there are none
		}
		return out, nil
	}
	for _, tree := range left {
		if ours[tree.Path] {
			continue
		}
		stat, _ := tree.Stat(ctx)
		out = append(out, Worktree{ID: tree.Branch, Agent: tree.ID, Task: tree.Task, Branch: tree.Branch,
			Path: tree.Path, Stat: strings.TrimSpace(stat), State: WorktreeLeftover})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// target finds the worktree id names: an isolated task of this run by its
// id, or a leftover of an earlier run by its branch. A task still running,
// or whose worktree is gone, is an error saying so; verb ("merge",
// "discard") is what the caller wanted to do, for the error's words.
func (m *Manager) target(ctx context.Context, id, verb string) (*worktree.Tree, *Task, error) {
	var known []string
	for _, t := range m.Tasks() {
		t.mu.Lock()
		iso := t.iso
		var state WorktreeState
		if iso != nil {
			state = iso.state
		}
		t.mu.Unlock()
		if t.ID != id {
			if state == WorktreeReady {
				known = append(known, t.ID)
			}
			continue
		}
		switch {
		case iso == nil:
			return nil, nil, fmt.Errorf("task %s did not run in a worktree; its changes are already in your tree", id)
		case state == WorktreeRunning:
			return nil, nil, fmt.Errorf("task %s is still running; wait for it (wait_for_task) before merging its worktree", id)
		case state != WorktreeReady:
			return nil, nil, fmt.Errorf("task %s's worktree cannot be used: %s", id, state)
		}
		return iso.tree, t, nil
	}
	if m.cfg.Workspace != "" {
		if left, err := worktree.Open(ctx, m.cfg.Workspace); err == nil {
			for _, tree := range left {
				if m.ours(tree.Path) {
					continue
				}
				if tree.Branch == id {
					return tree, nil, nil
				}
				known = append(known, tree.Branch)
			}
		}
	}
	if len(known) == 0 {
		return nil, nil, fmt.Errorf("unknown task_id %q: there are no worktrees to %s", id, verb)
	}
	return nil, nil, fmt.Errorf("unknown task_id %q; worktrees to %s: %s", id, verb, strings.Join(known, ", "))
}

// ours reports whether path is the worktree of one of this run's tasks.
func (m *Manager) ours(path string) bool {
	for _, t := range m.Tasks() {
		if t.worktreePath() == path {
			return true
		}
	}
	return false
}

// onWorktree runs op on the worktree id names, one such operation at a
// time, and records the state it leaves a task's worktree in.
func (m *Manager) onWorktree(ctx context.Context, id string, after WorktreeState, op func(*worktree.Tree) (string, error)) (string, error) {
	m.wtMu.Lock()
	defer m.wtMu.Unlock()
	verb := "merge"
	if after == WorktreeDiscarded {
		verb = "discard"
	}
	tree, t, err := m.target(ctx, id, verb)
	if err != nil {
		return "", err
	}
	msg, err := op(tree)
	if err != nil {
		return "", err
	}
	if t != nil {
		t.mu.Lock()
		t.iso.state = after
		t.mu.Unlock()
	}
	return msg, nil
}

// MergeWorktree applies the branch of task id (or a leftover's branch)
// onto the lead's work tree, all or nothing, and removes the worktree; a
// conflict is a *worktree.ConflictError and changes nothing.
func (m *Manager) MergeWorktree(ctx context.Context, id string) (string, error) {
	return m.onWorktree(ctx, id, WorktreeMerged, func(tree *worktree.Tree) (string, error) {
		stat, _ := tree.Stat(ctx)
		if m.cfg.BeforeMerge != nil {
			files, err := tree.Files(ctx)
			if err != nil {
				return "", fmt.Errorf("merge_worktree %s: %w", id, err)
			}
			m.cfg.BeforeMerge(files)
		}
		if err := tree.Merge(ctx); err != nil {
			return "", fmt.Errorf("merge_worktree %s: %w", id, err)
		}
		return fmt.Sprintf("Merged branch %s into your work tree (as uncommitted changes: %s); the worktree and branch were removed.",
			tree.Branch, strings.TrimSpace(stat)), nil
	})
}

// DiscardWorktree throws task id's worktree and branch away.
func (m *Manager) DiscardWorktree(ctx context.Context, id string) (string, error) {
	return m.onWorktree(ctx, id, WorktreeDiscarded, func(tree *worktree.Tree) (string, error) {
		if err := tree.Remove(ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("Discarded branch %s and its worktree.", tree.Branch), nil
	})
}
