package subagent

import (
	"context"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/agenttype"
	"github.com/atomic-agent/atomic/internal/event"
)

// State of a task as the companion tools report it.
type State string

// States. Queued and running tasks are both "running" to check_task.
const (
	StateQueued    State = "queued"
	StateRunning   State = "running"
	StateCompleted State = "completed"
	StateFailed    State = "failed"
	StateCancelled State = "cancelled"
)

// Done reports whether s is final.
func (s State) Done() bool {
	return s == StateCompleted || s == StateFailed || s == StateCancelled
}

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
}

// Task is one sub-agent run.
type Task struct {
	ID         string
	Spec       Spec
	Type       agenttype.Type
	Model      string
	SessionID  string
	cancel     context.CancelFunc
	done       chan struct{}
	stopParent func() bool

	mu          sync.Mutex
	state       State
	result      string
	err         string
	started     time.Time
	ended       time.Time
	toolUses    int
	currentTool string
	usage       event.Usage
	seen        bool
}

// Info is a snapshot of a task.
type Info struct {
	ID          string
	Description string
	Type        string
	Background  bool
	State       State
	Result      string
	Error       string
	Started     time.Time
	Ended       time.Time
	ToolUses    int
	CurrentTool string
	Usage       event.Usage
}

// Done is closed when the task has ended and its session is closed.
func (t *Task) Done() <-chan struct{} { return t.done }

// Info returns a snapshot.
func (t *Task) Info() Info {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Info{
		ID: t.ID, Description: t.Spec.Description, Type: t.Type.Name, Background: t.Spec.Background,
		State: t.state, Result: t.result, Error: t.err, Started: t.started, Ended: t.ended,
		ToolUses: t.toolUses, CurrentTool: t.currentTool, Usage: t.usage,
	}
}

// Elapsed is the run time so far, or the whole run time once ended.
func (i Info) Elapsed(now time.Time) time.Duration {
	if !i.Ended.IsZero() {
		return i.Ended.Sub(i.Started)
	}
	return now.Sub(i.Started)
}

// MarkSeen records that the lead has read the final result (check_task or
// wait_for_task), so no wake-up message needs to repeat it.
func (t *Task) MarkSeen() {
	t.mu.Lock()
	t.seen = t.state.Done()
	t.mu.Unlock()
}

// Seen reports whether the lead already read the final result.
func (t *Task) Seen() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seen
}

func (t *Task) setState(s State) {
	t.mu.Lock()
	t.state = s
	t.mu.Unlock()
}
