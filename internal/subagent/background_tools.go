package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/tools"
)

// bgTool holds what the background companions share.
type bgTool struct{ m *Manager }

func (bgTool) Kind() tools.Kind { return tools.Orchestrate }

// task finds the background task a call's task_id names, among those
// the caller may reach.
func (b bgTool) task(call tools.Call) (*Task, error) {
	var in struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, err
	}
	if err := b.m.scope(call.AgentID, in.TaskID); err != nil {
		return nil, err
	}
	return b.m.Lookup(in.TaskID, true)
}

// report words a task's record for the model. Reporting a final result
// claims it, so the wake-up does not repeat it.
func (b bgTool) report(t *Task) string {
	r := b.m.Record(t)
	el := r.Elapsed(b.m.cfg.Now()).Round(time.Second)
	switch StateOf(r.Status) {
	case StateCompleted:
		t.Claim()
		return fmt.Sprintf("Task %s: completed (%s).\nResult:\n%s", r.ID, el, cut(r.Result, b.m.cfg.MaxResult))
	case StateFailed:
		t.Claim()
		return fmt.Sprintf("Task %s: failed (%s).\nError: %s", r.ID, el, r.Error)
	case StateCancelled:
		t.Claim()
		return fmt.Sprintf("Task %s: cancelled (%s).", r.ID, el)
	}
	if r.Status == lifecycle.Waiting {
		return fmt.Sprintf("Task %s: waiting (%s): its turn ended while work it started still runs; it resumes when that ends.", r.ID, el)
	}
	var detail []string
	if r.Status == lifecycle.Pending || r.Waiting == lifecycle.WaitingSlot {
		detail = append(detail, "queued for a slot")
	} else if r.Waiting != "" {
		detail = append(detail, "waiting for approval: "+r.Waiting)
	}
	detail = append(detail, fmt.Sprintf("%d tool uses", r.ToolUses))
	if r.CurrentTool != "" {
		detail = append(detail, "current tool: "+r.CurrentTool)
	}
	return fmt.Sprintf("Task %s: running (%s, %s).", r.ID, el, strings.Join(detail, "; "))
}

// --- check_task ---

const checkTaskDescription = `Reports a background task's state without waiting: running (with its progress), completed with the result, failed with the error, or cancelled.`

// CheckTask is the check_task tool.
type CheckTask struct{ bgTool }

// NewCheckTask returns check_task.
func NewCheckTask(m *Manager) *CheckTask { return &CheckTask{bgTool{m}} }

func (*CheckTask) Name() string        { return "check_task" }
func (*CheckTask) Description() string { return checkTaskDescription }
func (*CheckTask) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"task_id":{"type":"string"}},"required":["task_id"],"additionalProperties":false}`)
}

func (c *CheckTask) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	t, err := c.task(call)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: c.report(t)}, nil
}

// --- wait_for_task ---

const waitForTaskDescription = `Waits for a background task to finish and returns its result; with timeout_seconds, stops waiting then (the task goes on).`

// WaitForTask is the wait_for_task tool.
type WaitForTask struct{ bgTool }

// NewWaitForTask returns wait_for_task.
func NewWaitForTask(m *Manager) *WaitForTask { return &WaitForTask{bgTool{m}} }

func (*WaitForTask) Name() string        { return "wait_for_task" }
func (*WaitForTask) Description() string { return waitForTaskDescription }
func (*WaitForTask) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"task_id":{"type":"string"},"timeout_seconds":{"type":"number","minimum":0}},"required":["task_id"],"additionalProperties":false}`)
}

func (w *WaitForTask) Run(ctx context.Context, call tools.Call) (res tools.Result, err error) {
	var in struct {
		TaskID  string   `json:"task_id"`
		Timeout *float64 `json:"timeout_seconds"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Result{}, err
	}
	if err := w.m.scope(call.AgentID, in.TaskID); err != nil {
		return tools.Result{}, err
	}
	t, err := w.m.Lookup(in.TaskID, true)
	if err != nil {
		return tools.Result{}, err
	}
	if caller := w.m.blockOn(call.AgentID); caller != nil {
		caller.block()
		defer func() {
			if uerr := caller.unblock(ctx); uerr != nil && err == nil {
				err = uerr
			}
		}()
	}
	wctx := ctx
	if in.Timeout != nil {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, time.Duration(*in.Timeout*float64(time.Second)))
		defer cancel()
	}
	select {
	case <-t.Done():
	case <-wctx.Done():
		if ctx.Err() != nil {
			return tools.Result{}, fmt.Errorf("stopped waiting for %s: %w", t.ID, ctx.Err())
		}
		return tools.Result{Content: fmt.Sprintf("Timed out after %gs; %s", *in.Timeout, w.report(t))}, nil
	}
	return tools.Result{Content: w.report(t)}, nil
}

// --- list_background_tasks ---

const listTasksDescription = `Lists the background tasks with their status, elapsed time and description.`

// ListTasks is the list_background_tasks tool.
type ListTasks struct{ bgTool }

// NewListTasks returns list_background_tasks.
func NewListTasks(m *Manager) *ListTasks { return &ListTasks{bgTool{m}} }

func (*ListTasks) Name() string        { return "list_background_tasks" }
func (*ListTasks) Description() string { return listTasksDescription }
func (*ListTasks) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
}

func (l *ListTasks) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	now := l.m.cfg.Now()
	var b strings.Builder
	mine := l.m.blockOn(call.AgentID) != nil
	for _, t := range l.m.Tasks() {
		if !t.Spec.Background || mine && !l.m.below(call.AgentID, t.ID) {
			continue
		}
		r := l.m.Record(t)
		word := string(StateOf(r.Status))
		if r.Status == lifecycle.Pending || r.Waiting == lifecycle.WaitingSlot {
			word = "running (queued)"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s: %s\n", r.ID, word, r.Elapsed(now).Round(time.Second), t.Type.Name, t.Spec.Description)
	}
	if b.Len() == 0 {
		return tools.Result{Content: "No background tasks."}, nil
	}
	return tools.Result{Content: "id\tstatus\telapsed\tdescription\n" + b.String()}, nil
}

// --- cancel_task ---

const cancelTaskDescription = `Cancels a running background task, or any agent of the tree by its id (a teammate, a sub-agent an external CLI started).`

// CancelTask is the cancel_task tool.
type CancelTask struct{ bgTool }

// NewCancelTask returns cancel_task.
func NewCancelTask(m *Manager) *CancelTask { return &CancelTask{bgTool{m}} }

func (*CancelTask) Name() string        { return "cancel_task" }
func (*CancelTask) Description() string { return cancelTaskDescription }
func (*CancelTask) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"task_id":{"type":"string"}},"required":["task_id"],"additionalProperties":false}`)
}

func (c *CancelTask) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var in struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Result{}, fmt.Errorf("cancel_task: bad input: %w", err)
	}
	id := in.TaskID
	if err := c.m.scope(call.AgentID, id); err != nil {
		return tools.Result{}, err
	}
	o, err := c.m.cfg.Owners.Lookup(id)
	if err != nil {
		return tools.Result{}, err
	}
	if c.m.cfg.Agents.Ended(id) {
		return tools.Result{Content: fmt.Sprintf("Task %s already finished (%s); nothing to cancel.", id, c.m.ended(id))}, nil
	}
	if err := c.m.cfg.Owners.Cancel(id); err != nil {
		return tools.Result{}, err
	}
	if o.Done == nil {
		return tools.Result{Content: fmt.Sprintf("Task %s: %s was told to stop it.", id, o)}, nil
	}
	select {
	case <-o.Done:
	case <-ctx.Done():
		return tools.Result{}, ctx.Err()
	}
	return tools.Result{Content: fmt.Sprintf("Task %s cancelled.", id)}, nil
}

// ended words how agent id ended: a sub-agent's state, else "ended" (a
// teammate).
func (m *Manager) ended(id string) string {
	if r, ok := m.cfg.Agents.Agent(id); ok {
		return string(StateOf(r.Status))
	}
	return "ended"
}

// --- merge_worktree ---

const mergeWorktreeDescription = `Applies the changes an isolated task committed on its branch to your work tree, uncommitted, and removes its worktree and branch. All or nothing: on a conflict nothing changes and the files are named.`

// MergeWorktree is the merge_worktree tool; it changes the lead's files,
// so it is gated like an edit.
type MergeWorktree struct{ m *Manager }

// NewMergeWorktree returns merge_worktree.
func NewMergeWorktree(m *Manager) *MergeWorktree { return &MergeWorktree{m} }

func (*MergeWorktree) Name() string        { return "merge_worktree" }
func (*MergeWorktree) Description() string { return mergeWorktreeDescription }
func (*MergeWorktree) Kind() tools.Kind    { return tools.Edit }
func (*MergeWorktree) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"task_id":{"type":"string"}},"required":["task_id"],"additionalProperties":false}`)
}

// Subject implements tools.Subjecter: approvals name the task.
func (*MergeWorktree) Subject(input json.RawMessage) string {
	var in struct {
		TaskID string `json:"task_id"`
	}
	_ = json.Unmarshal(input, &in)
	return in.TaskID
}

func (w *MergeWorktree) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var in struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Result{}, fmt.Errorf("merge_worktree: bad input: %w", err)
	}
	msg, err := w.m.MergeWorktree(ctx, in.TaskID)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: msg}, nil
}
