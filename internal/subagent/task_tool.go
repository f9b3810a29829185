package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/tools"
)

const taskDescription = `Starts a sub-agent with a fresh context and only your prompt: put every detail it needs there and say what to report. Its report is not shown to the user. Several calls in one message run in parallel. mode background returns a task id at once; you are told when it ends. isolation worktree gives the agent its own git branch, so parallel edits cannot clash (merge_worktree applies them).
Types:%s`

const taskSchema = `{
  "type": "object",
  "properties": {
    "description": {"type": "string", "description": "3 to 5 words, shown to the user"},
    "prompt": {"type": "string"},
    "subagent_type": {"type": "string", "description": "Default general-purpose"},
    "mode": {"type": "string", "enum": ["sync", "background", "async"], "description": "Default sync: wait for the report"},
    "isolation": {"type": "string", "enum": ["worktree"]}
  },
  "required": ["description", "prompt"],
  "additionalProperties": false
}`

// TaskTool is the task tool over a Manager.
type TaskTool struct{ m *Manager }

// NewTaskTool returns the task tool.
func NewTaskTool(m *Manager) *TaskTool { return &TaskTool{m: m} }

// Name implements tools.Tool.
func (*TaskTool) Name() string { return "task" }

// Description implements tools.Tool; it lists the agent types.
func (t *TaskTool) Description() string {
	var b strings.Builder
	for _, ty := range t.m.Types().All() {
		fmt.Fprintf(&b, "\n- %s: %s", ty.Name, ty.Description)
	}
	return fmt.Sprintf(taskDescription, b.String())
}

// Schema implements tools.Tool.
func (*TaskTool) Schema() json.RawMessage { return json.RawMessage(taskSchema) }

// Kind implements tools.Tool.
func (*TaskTool) Kind() tools.Kind { return tools.Orchestrate }

// Reserve implements tools.Reserver: it names the agent the call will
// start, so the call's tool.start carries its id, its session and whether
// it waits for a slot. A call whose input is bad reserves nothing: Start
// reports the error.
func (t *TaskTool) Reserve(call tools.Call) (tools.Reservation, error) {
	spec, err := t.spec(call)
	if err != nil {
		return tools.Reservation{}, err
	}
	task, queued, err := t.m.Reserve(spec)
	if err != nil {
		return tools.Reservation{}, err
	}
	return tools.Reservation{AgentID: task.ID, SessionID: task.SessionID, Queued: queued, Subject: spec.Description}, nil
}

// Release implements tools.Reserver.
func (t *TaskTool) Release(callID string) { t.m.Release(callID) }

// spec reads a call's input.
func (t *TaskTool) spec(call tools.Call) (Spec, error) {
	in, err := event.ParseTaskInput(call.Input)
	if err != nil {
		return Spec{}, fmt.Errorf("task: %w", err)
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return Spec{}, fmt.Errorf("task: prompt is empty; say what the agent should do")
	}
	if in.Isolation != "" && in.Isolation != spawn.Worktree {
		return Spec{}, fmt.Errorf("task: isolation %q is not supported; use %q or leave it out", in.Isolation, spawn.Worktree)
	}
	return Spec{
		ToolCallID: call.ID, ParentID: call.AgentID, Description: in.Description,
		Prompt: in.Prompt, Type: in.SubagentType, Background: in.Background, Isolation: in.Isolation,
	}, nil
}

// Subject implements tools.Subjecter.
func (*TaskTool) Subject(input json.RawMessage) string {
	in, _ := event.ParseTaskInput(input)
	return in.Description
}

// Run implements tools.Tool.
func (t *TaskTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	wait, err := t.Start(ctx, call)
	if err != nil {
		return tools.Result{}, err
	}
	return wait()
}

// Start implements tools.Starter: it spawns the sub-agent (in the model's
// call order, so ids and the pending queue follow it) and returns the wait.
func (t *TaskTool) Start(ctx context.Context, call tools.Call) (func() (tools.Result, error), error) {
	return t.StartNotify(ctx, call, nil)
}

// StartNotify implements tools.Notifier: ready is called when the agent
// has ended (a background task's at once).
func (t *TaskTool) StartNotify(ctx context.Context, call tools.Call, ready func()) (func() (tools.Result, error), error) {
	spec, reserved := t.m.Reserved(call.ID)
	if !reserved {
		var err error
		if spec, err = t.spec(call); err != nil {
			return nil, err
		}
	}
	task, err := t.m.Spawn(ctx, spec)
	if err != nil {
		return nil, err
	}
	if spec.Background {
		ack := fmt.Sprintf("Started background task %s (%s: %s). It keeps working while you continue. "+
			"Use check_task or wait_for_task with task_id %q for its result; you will also be told when it finishes.",
			task.ID, task.Type.Name, spec.Description, task.ID)
		if ready != nil {
			ready()
		}
		return func() (tools.Result, error) { return tools.Result{Content: ack}, nil }, nil
	}
	task.whenDone(ready)
	caller := t.m.blockOn(call.AgentID)
	if caller != nil {
		caller.block() // its child may need the slot it holds
	}
	return func() (tools.Result, error) {
		<-task.Done() // ends promptly when ctx does: the task is tied to it
		if caller != nil {
			if err := caller.unblock(ctx); err != nil {
				return tools.Result{}, err
			}
		}
		r := t.m.Record(task)
		switch r.Status {
		case lifecycle.Completed:
			return tools.Result{Content: cut(r.Result, t.m.cfg.MaxResult)}, nil
		case lifecycle.Interrupted:
			return tools.Result{}, fmt.Errorf("sub-agent %s was cancelled before it finished", task.ID)
		}
		return tools.Result{}, fmt.Errorf("sub-agent %s failed: %s", task.ID, r.Error)
	}, nil
}

// cut shortens a result to its first max characters (runes, so multi-byte
// text is neither split nor cut short) and says how many it kept of how
// many.
func cut(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + fmt.Sprintf("\n\n[result cut: %d of %d characters shown]", max, utf8.RuneCountInString(s))
		}
		n++
	}
	return s
}
