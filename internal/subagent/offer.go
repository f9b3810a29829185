package subagent

import (
	"github.com/atomic-agent/atomic/internal/tools"
)

// offer is the tool set of the agent that runs this manager's tasks (the
// lead's), into which tools join once they can work.
type offer struct {
	set        *tools.Set
	background bool // the companions are offered
	merge      bool // merge_worktree is offered
}

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
	m.offer = &offer{set: set}
	m.mu.Unlock()
}

// offerFor adds the tools t makes useful to the offered set, if any; the
// set is changed under m.mu, so a tool is added once.
func (m *Manager) offerFor(t *Task) {
	merge := t.tree() != nil
	m.mu.Lock()
	defer m.mu.Unlock()
	o := m.offer
	if o == nil {
		return
	}
	if t.Spec.Background && !o.background {
		o.background = true
		for _, tool := range []tools.Tool{NewCheckTask(m), NewWaitForTask(m), NewListTasks(m), NewCancelTask(m)} {
			o.set.Add(tool)
		}
	}
	if merge && !o.merge {
		o.merge = true
		o.set.Add(NewMergeWorktree(m))
	}
}
