package subagent

import (
	"github.com/atomic-agent/atomic/internal/tools"
)

// Offer puts the task tool into set (the lead's tools) at once, and each
// other orchestration tool once it can work: check_task, wait_for_task,
// list_background_tasks and cancel_task once a background task exists,
// merge_worktree once an agent of this run has a worktree. A tool joins
// set before the call that made it useful returns (Spawn, a remote
// agent's branch), and an agent reads its set on each request, so the
// next request offers it. Tools are never taken away. Until offered they
// are held (tools.Set.Hold): a call to one still reaches it and is
// answered (no such task, no worktree), never "unknown tool".
func Offer(m *Manager, set *tools.Set) {
	set.Add(NewTaskTool(m))
	for _, tool := range []tools.Tool{NewCheckTask(m), NewWaitForTask(m), NewListTasks(m), NewCancelTask(m), NewMergeWorktree(m)} {
		set.Hold(tool)
	}
	m.mu.Lock()
	m.offer = set
	m.mu.Unlock()
}

// companions are the tools that follow a background task.
var companions = []string{"check_task", "wait_for_task", "list_background_tasks", "cancel_task"}

// offerFor offers the held tools t makes useful, if any (offering one
// already offered changes nothing).
func (m *Manager) offerFor(t *Task) {
	merge := t.tree() != nil
	set := m.offerSet(t)
	if set == nil {
		return
	}
	if t.Spec.Background {
		set.Offer(companions...)
	}
	if merge {
		set.Offer("merge_worktree")
	}
}
