package subagent

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/inbox"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/worktree"
)

// Spec is what a task call asks for.
type Spec struct {
	// ToolCallID is the task tool call that spawns the agent.
	ToolCallID string
	// ParentID is the agent id of the caller.
	ParentID    string
	Description string
	Prompt      string
	Type        string // subagent_type; empty: general-purpose
	Background  bool
	// Isolation is "worktree" for an agent that works in a git worktree
	// of its own; empty takes the agent type's.
	Isolation string
	// History is a saved conversation the agent continues (a resumed
	// task); Prompt then follows it.
	History []provider.Message
}

// Task is one sub-agent run: its identity and the handles that control its
// goroutine. It holds no status: what the agent is doing and how it ended is
// the lifecycle reducer's record (Manager.Record), the one state every view
// and tool reads.
type Task struct {
	ID        string
	Spec      Spec
	Type      spawn.Type
	Model     string
	SessionID string
	// backend is where it runs: backend.Native, a CLI's name or
	// spawn.Remote.
	backend    string
	cancel     context.CancelFunc
	done       chan struct{}
	stopParent func() bool

	// cli is the external CLI session running the task (a mixed tree),
	// while it runs: its own sub-agents are cancelled through it.
	cli atomic.Pointer[backend.Session]
	// nest is what a task that may start sub-agents of its own has
	// (nest.go); its depth is 1 for the lead's own sub-agents.
	nest nesting
	// live is the native session running the task while its shells may
	// wake it (see shells.go).
	live atomic.Pointer[liveSession]

	// claimed is taken once the lead has been given the final result (by
	// check_task, wait_for_task or the wake-up), so it is given once.
	claimed inbox.Claim

	// What the task's subagent.update events say besides the reducer's
	// counts; not a status.
	mu  sync.Mutex
	iso *isolation // nil: not isolated
	// worker and note: the remote worker running the task and what its
	// row says about it; started is set once its subagent.start is out.
	worker  string
	note    string
	started atomic.Bool
	// ended is set and onDone called once done is closed.
	ended  bool
	onDone []func()
}

// whenDone calls f once t has ended (done closed): at once if it has.
func (t *Task) whenDone(f func()) {
	if f == nil {
		return
	}
	t.mu.Lock()
	if !t.ended {
		t.onDone = append(t.onDone, f)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	f()
}

// end closes done and calls what waits for it. Under mu: a waiter that
// saw done closed is called at once.
func (t *Task) end() {
	t.mu.Lock()
	close(t.done)
	t.ended = true
	fs := t.onDone
	t.onDone = nil
	t.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// workerName is the remote worker running t ("" when local or not taken).
func (t *Task) workerName() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.worker
}

// tree is t's worktree, nil when it is not isolated.
func (t *Task) tree() *worktree.Tree {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.iso == nil {
		return nil
	}
	return t.iso.tree
}

// worktreePath is where t works when isolated, else empty.
func (t *Task) worktreePath() string {
	if tree := t.tree(); tree != nil {
		return tree.Path
	}
	return ""
}

// Done is closed when the task's goroutine has ended: its session closed
// and its subagent.complete emitted.
func (t *Task) Done() <-chan struct{} { return t.done }

// Claim records that the lead is being given t's final result and reports
// whether this is the first time.
func (t *Task) Claim() bool { return t.claimed.Take() }

// Claimed reports whether the lead was already given t's final result.
func (t *Task) Claimed() bool { return t.claimed.Taken() }

// OnClaim has f run once the lead is given t's final result, by whichever
// path: at once if it was already.
func (t *Task) OnClaim(f func()) { t.claimed.Then(f) }

func (t *Task) progress() event.SubagentUpdateData {
	t.mu.Lock()
	defer t.mu.Unlock()
	return event.SubagentUpdateData{Worker: t.worker, Note: t.note}
}

// Outcome is how a task ended, as its subagent.complete reports it.
type Outcome = event.SubagentCompleteData

// State is a task's state as the companion tools word it, derived from the
// reducer's status: running (pending, running or background), completed,
// failed (error) or cancelled (interrupted).
type State string

// The companion tools' states.
const (
	StateRunning   State = "running"
	StateCompleted State = "completed"
	StateFailed    State = "failed"
	StateCancelled State = "cancelled"
	// StateWaiting: its turn ended while work it started still runs.
	StateWaiting State = "waiting"
)

// StateOf words a lifecycle status for the companion tools.
func StateOf(s lifecycle.Status) State {
	switch s {
	case lifecycle.Completed:
		return StateCompleted
	case lifecycle.Error:
		return StateFailed
	case lifecycle.Interrupted:
		return StateCancelled
	case lifecycle.Waiting:
		return StateWaiting
	}
	return StateRunning
}
