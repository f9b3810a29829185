package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Resumable is a background sub-agent of a resumed session that Atomic's
// death interrupted: enough to continue it from its own history.
type Resumable struct {
	Type        string
	Description string
	History     []provider.Message
}

// ContinuePrompt is what a resumed sub-agent is told after its history.
const ContinuePrompt = "Atomic was restarted while you were working and your last step may have been cut off. Continue your task from where you stopped, without redoing finished work, and end with your final report."

// AddResumable offers the interrupted task id for ResumeTask.
func (m *Manager) AddResumable(id string, r Resumable) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.resumable == nil {
		m.resumable = map[string]Resumable{}
	}
	m.resumable[id] = r
}

// Resumable lists the ids ResumeTask can continue, sorted.
func (m *Manager) Resumable() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.resumable))
	for id := range m.resumable {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ResumeTask continues the interrupted background task id from its saved
// history as a new background task (the old one stays interrupted in the
// tree), started by parentID's call callID; its result reaches the lead
// as any background result does. Each task is resumed once.
func (m *Manager) ResumeTask(ctx context.Context, id, parentID, callID string) (*Task, error) {
	m.mu.Lock()
	r, ok := m.resumable[id]
	delete(m.resumable, id)
	m.mu.Unlock()
	if !ok {
		known := m.Resumable()
		if len(known) == 0 {
			return nil, fmt.Errorf("no interrupted task %q to resume: nothing of this session can be resumed", id)
		}
		return nil, fmt.Errorf("no interrupted task %q to resume; these can be: %s", id, strings.Join(known, ", "))
	}
	if callID == "" {
		callID = "resume-" + id
	}
	t, err := m.Spawn(ctx, Spec{ToolCallID: callID, ParentID: parentID, Type: r.Type, Background: true,
		Description: strings.TrimSpace(r.Description + " (resumed " + id + ")"), Prompt: ContinuePrompt, History: r.History})
	if err != nil {
		m.AddResumable(id, r) // it may be tried again
		return nil, err
	}
	return t, nil
}

const resumeTaskDescription = `Continue a background task that was interrupted because Atomic exited before it finished (the session was resumed). The task picks up from its own saved conversation, keeping the work it had done, and runs in the background under a new id; you are told when it finishes, as for any background task.`

// ResumeTaskTool is the resume_task tool, offered to the lead of a resumed
// session that has interrupted background tasks.
type ResumeTaskTool struct{ bgTool }

// NewResumeTask returns resume_task.
func NewResumeTask(m *Manager) *ResumeTaskTool { return &ResumeTaskTool{bgTool{m}} }

func (*ResumeTaskTool) Name() string        { return "resume_task" }
func (*ResumeTaskTool) Description() string { return resumeTaskDescription }
func (*ResumeTaskTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"task_id":{"type":"string","description":"The interrupted task's id, e.g. explore-1"}},"required":["task_id"],"additionalProperties":false}`)
}

func (r *ResumeTaskTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var in struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Result{}, fmt.Errorf("resume_task: %w", err)
	}
	t, err := r.m.ResumeTask(ctx, in.TaskID, call.AgentID, call.ID)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: fmt.Sprintf("Resumed %s as background task %s; you will be told when it finishes.", in.TaskID, t.ID)}, nil
}
