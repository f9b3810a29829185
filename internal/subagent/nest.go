package subagent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/tools"
)

// DefaultMaxDepth is how many levels of sub-agents may be below the lead
// by default (issue 24): the lead's sub-agents are level 1, and an agent
// at level 3 starts none of its own.
const DefaultMaxDepth = 3

// nesting is what a task needs to start sub-agents of its own and to wait
// for them: its depth, its tool set (whose companions are offered as its
// own background tasks appear), its session (told of each child's end)
// and its concurrency slot, which it gives back while it is blocked on
// its children, so that with any cap no child waits behind its own
// ancestor.
type nesting struct {
	depth int
	ctx   context.Context
	offer *tools.Set
	sess  atomic.Pointer[backend.Session]
	wake  chan struct{}

	mu      sync.Mutex
	slot    *slots // the queue it holds a slot of; nil while it holds none
	from    *slots // the queue it takes its slots from
	blocked int    // sync children and waits it is blocked on
}

// depthLocked is the depth an agent started by parentID gets: one below
// its parent (the lead and agents the manager did not start are level 0).
// At the limit it is an error the caller's model reads. m.mu is held.
func (m *Manager) depthLocked(parentID string) (int, error) {
	p := m.nestOfLocked(parentID)
	if p == nil {
		return 1, nil
	}
	if p.depth >= m.cfg.MaxDepth {
		return 0, fmt.Errorf("task: %s is %d levels below the lead, the depth limit (max_depth %d): it cannot start sub-agents; do the work yourself",
			parentID, p.depth, m.cfg.MaxDepth)
	}
	return p.depth + 1, nil
}

// nestOfLocked is the nesting of agent id: a task of this manager's or an
// adopted agent (a teammate); nil for the lead. m.mu is held.
func (m *Manager) nestOfLocked(id string) *nesting {
	if p := m.tasks[id]; p != nil {
		return &p.nest
	}
	return m.adopted[id]
}

// baseOfLocked is the context a task started by parentID lives under:
// its parent task's, so that stopping an agent stops its subtree, else
// the manager's. m.mu is held.
func (m *Manager) baseOfLocked(parentID string) context.Context {
	if p := m.nestOfLocked(parentID); p != nil && p.ctx != nil {
		return p.ctx
	}
	return m.base
}

// parentOf is the nesting of the agent that started t (a task or an
// adopted teammate), nil when the lead did.
func (m *Manager) parentOf(t *Task) *nesting {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.nestOfLocked(t.Spec.ParentID)
}

// nests reports whether agents of t's type may start sub-agents: a
// native type that keeps every tool (general-purpose, a file naming no
// tools) or lists task; explore and other types stay as listed.
func nests(t *Task, plan spawn.Plan) bool {
	return plan.Backend == backend.Native && spawn.Nests(t.Type)
}

// nestTools is t's own tool set: plan's, its shell tools held until it
// starts a background shell, plus, below the depth limit, the task tool
// and its companions (held until t starts a background task) scoped to
// t's own children. Tools follow what an agent starts so that one that
// starts nothing is not sent their definitions on every request.
func (m *Manager) nestTools(t *Task, plan spawn.Plan) *tools.Set {
	if plan.Backend != backend.Native {
		return plan.Tools
	}
	set := plan.Tools.Without() // a copy: what t is offered grows with what it starts
	m.cfg.Shells.Follow(t.ID, set)
	if !nests(t, plan) || t.nest.depth >= m.cfg.MaxDepth {
		return set
	}
	set.Add(NewTaskTool(m))
	for _, tool := range []tools.Tool{NewCheckTask(m), NewWaitForTask(m), NewListTasks(m), NewCancelTask(m)} {
		set.Hold(tool)
	}
	t.nest.offer = set
	return set
}

// offerSet is the set whose companions t's spawn offers: its parent
// task's, else the lead's.
func (m *Manager) offerSet(t *Task) *tools.Set {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.nestOfLocked(t.Spec.ParentID); p != nil {
		return p.offer
	}
	return m.offer
}

// notify tells n's session that its background child ended, with the
// result, as the lead is told of its own: decided when its next turn is
// built, so a result it already read (check_task, wait_for_task) is not
// repeated. A cancelled child tells nobody: its parent, or the user,
// stopped it.
func (n *nesting) notify(child *Task, out Outcome) {
	s := n.sess.Load()
	if s == nil || !child.Spec.Background || out.Cancelled {
		return
	}
	body := "completed.\nResult:\n" + out.Result
	if !out.Success {
		body = "failed.\nError: " + out.Error
	}
	text := fmt.Sprintf("<task-notification>\nBackground task %s (%s: %s) %s\n</task-notification>",
		child.ID, child.Type.Name, child.Spec.Description, body)
	(*s).DeliverLazy(func() (string, bool) { return text, child.Claim() }, func() bool { return !child.Claimed() })
}

// wakeUp tells n's carry loop that a child ended.
func (n *nesting) wakeUp() {
	if n.wake == nil {
		return
	}
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// hold records that n's task runs on a slot of s.
func (n *nesting) hold(tk *ticket) {
	n.mu.Lock()
	n.slot, n.from = tk.s, tk.s
	n.mu.Unlock()
}

// giveBack releases the slot n holds, if any (its task ended).
func (n *nesting) giveBack() {
	n.mu.Lock()
	s := n.slot
	n.slot = nil
	n.mu.Unlock()
	if s != nil {
		s.release()
	}
}

// block gives n's slot back while its task is blocked on its own
// children (a sync child, a wait, its turn ended with children running):
// held, the slot could be the one its child queues for.
func (n *nesting) block() {
	n.mu.Lock()
	n.blocked++
	s := n.slot
	if n.blocked > 1 {
		s = nil
	}
	if s != nil {
		n.slot = nil
	}
	n.mu.Unlock()
	if s != nil {
		s.release()
	}
}

// unblock ends one block; the last takes a slot again, ahead of every
// agent queued (it was running before them). It fails when ctx ends
// first: the task then holds no slot.
func (n *nesting) unblock(ctx context.Context) error {
	n.mu.Lock()
	n.blocked--
	last := n.blocked == 0 && n.slot == nil && n.from != nil
	from := n.from
	n.mu.Unlock()
	if !last {
		return nil
	}
	tk := from.joinFront()
	if err := tk.wait(ctx); err != nil {
		return fmt.Errorf("waiting for a slot again: %w", err)
	}
	n.mu.Lock()
	n.slot = from
	n.mu.Unlock()
	return nil
}

// leave ends a block without taking a slot again: the task is ending.
func (n *nesting) leave() {
	n.mu.Lock()
	n.blocked--
	n.mu.Unlock()
}

// blockOn is the nesting of agent caller (nil for the lead) whose slot
// a blocking call of caller's gives back while it waits (an adopted
// teammate holds none).
func (m *Manager) blockOn(caller string) *nesting {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.nestOfLocked(caller)
}

// below reports whether agent id is beneath agent caller in the tree (the
// reducer's parent links).
func (m *Manager) below(caller, id string) bool {
	for p, n := id, 0; n <= m.cfg.MaxDepth+1; n++ {
		r, ok := m.cfg.Agents.Agent(p)
		if !ok {
			return false
		}
		if r.ParentID == caller {
			return true
		}
		p = r.ParentID
	}
	return false
}

// scope checks that caller may reach task id: the lead reaches every
// task; a sub-agent only those beneath it.
func (m *Manager) scope(caller, id string) error {
	if m.blockOn(caller) == nil || m.below(caller, id) {
		return nil
	}
	var mine []string
	for _, t := range m.Tasks() {
		if t.Spec.ParentID == caller {
			mine = append(mine, t.ID)
		}
	}
	if len(mine) == 0 {
		return fmt.Errorf("unknown task_id %q: you have started no tasks", id)
	}
	slices.Sort(mine)
	return fmt.Errorf("unknown task_id %q; your task ids: %s", id, strings.Join(mine, ", "))
}
