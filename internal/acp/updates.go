package acp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// translator turns a run's events into ACP session updates: the lead's text
// as message chunks, the lead's tool calls as tool calls (kind, locations,
// a diff for edits), the lead's plan, and every sub-agent as one tool call
// whose status is the lifecycle reducer's. A sub-agent's own text and tool
// calls are shown inside its tool call (current tool, then its result),
// not as the lead's. It keeps no reducer: the records it shows are those
// the bus's agent.status events carry (bus.Options.Records), so the last
// record it was handed is what the client was last sent. It is used by
// one goroutine at a time.
type translator struct {
	// root resolves relative paths of tool inputs.
	root string
	// edits gives the text of an edited file before and after the edit,
	// for its diff; nil: no diffs (a replayed past).
	edits edits
	// paths holds, by tool call id, the absolute path an edit changes.
	paths map[string]string
	// tasks are the tool call ids that spawned sub-agents (started as ACP
	// tool calls).
	tasks map[string]bool
	// recs is the reducer's latest record of each sub-agent, as sent.
	recs lifecycle.View
}

func newTranslator(root string) *translator {
	return &translator{root: root, paths: map[string]string{}, tasks: map[string]bool{}}
}

// updates returns the session updates e makes (none for most events). A
// sub-agent's tool call follows the records agent.status events carry: a
// new status updates the whole call, a record that changed only what it
// shows (its current tool, tool uses) updates its content.
func (t *translator) updates(e event.Event) []sdk.SessionUpdate {
	r, ok := lifecycle.RecordOf(e)
	if !ok {
		return t.leadUpdates(e)
	}
	old, found := t.recs.Put(r)
	if r.IsShell() {
		return t.shellUpdates(old, found, r)
	}
	id := string(agentCallID(r))
	switch {
	case !found || !t.tasks[id] || old.Status != r.Status:
		return []sdk.SessionUpdate{t.agentUpdate(r)}
	case contentText(old) != contentText(r):
		return []sdk.SessionUpdate{sdk.UpdateToolCall(agentCallID(r), sdk.WithUpdateContent(agentContent(r)))}
	}
	return nil
}

// agent returns the record of sub-agent id as the client was last sent it.
func (t *translator) agent(id string) (lifecycle.Record, bool) { return t.recs.Get(id) }

// leadUpdates are the updates of the lead's own events.
func (t *translator) leadUpdates(e event.Event) []sdk.SessionUpdate {
	if e.AgentID != event.LeadID {
		return nil
	}
	switch e.Type {
	case event.MessageDelta:
		d, ok := event.Payload[event.MessageDeltaData](e.Data)
		if !ok || d.Text == "" || d.Discard {
			return nil
		}
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(d.Text)}
	case event.ThinkingDelta:
		d, ok := event.Payload[event.ThinkingDeltaData](e.Data)
		if !ok || d.Text == "" || d.Discard {
			return nil
		}
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(d.Text)}
	case event.ToolStart:
		d, ok := event.Payload[event.ToolStartData](e.Data)
		if !ok {
			return nil
		}
		return []sdk.SessionUpdate{t.toolStart(e.ToolCallID, d)}
	case event.ToolComplete:
		d, ok := event.Payload[event.ToolCompleteData](e.Data)
		if !ok || t.tasks[e.ToolCallID] {
			return nil // a sub-agent's tool call follows its record
		}
		return []sdk.SessionUpdate{t.toolComplete(e.ToolCallID, d)}
	case event.ToolProgress:
		d, ok := event.Payload[event.ToolProgressData](e.Data)
		if !ok || e.ToolCallID == "" || t.tasks[e.ToolCallID] {
			return nil
		}
		// The call's content is its progress until its result replaces it.
		return []sdk.SessionUpdate{sdk.UpdateToolCall(sdk.ToolCallId(e.ToolCallID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(d.Line()))}))}
	case event.PlanUpdate:
		d, ok := event.Payload[event.PlanUpdateData](e.Data)
		if !ok {
			return nil
		}
		return []sdk.SessionUpdate{plan(d.Todos)}
	}
	return nil
}

// agentUpdate reports r's status and content on its tool call; the call
// is started here when the lead's tool.start did not (a sub-agent of an
// external CLI lead).
func (t *translator) agentUpdate(r lifecycle.Record) sdk.SessionUpdate {
	id := agentCallID(r)
	if !t.tasks[string(id)] {
		t.tasks[string(id)] = true
		return sdk.StartToolCall(id, agentTitle(r), sdk.WithStartKind(sdk.ToolKindOther),
			sdk.WithStartStatus(agentStatus(r.Status)), sdk.WithStartContent(agentContent(r)), t.attach(r))
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(agentStatus(r.Status)), sdk.WithUpdateContent(agentContent(r)),
		sdk.WithUpdateTitle(agentTitle(r))}
	if r.Status.Terminal() {
		out := map[string]any{"status": string(r.Status)}
		if r.Result != "" {
			out["result"] = r.Result
		}
		if r.Error != "" {
			out["error"] = r.Error
		}
		opts = append(opts, sdk.WithUpdateRawOutput(out))
	}
	return sdk.UpdateToolCall(id, opts...)
}

// attach ties the tool call of a sub-agent's own sub-agent to its
// parent's (ACP has no nesting of tool calls): its _meta names the
// parent's tool call and both agents.
func (t *translator) attach(r lifecycle.Record) sdk.ToolCallStartOpt {
	return func(tc *sdk.SessionUpdateToolCall) {
		p, ok := t.recs.Get(r.ParentID)
		if r.ParentID == "" || r.ParentID == event.LeadID || !ok {
			return
		}
		tc.Meta = map[string]any{"agentId": r.ID, "parentAgentId": r.ParentID, "parentToolCallId": string(agentCallID(p))}
	}
}

// agentCallID is the tool call that shows sub-agent r: the task call that
// spawned it.
func agentCallID(r lifecycle.Record) sdk.ToolCallId {
	if r.ToolCallID != "" {
		return sdk.ToolCallId(r.ToolCallID)
	}
	return sdk.ToolCallId(r.ID)
}

func agentTitle(r lifecycle.Record) string {
	title := fmt.Sprintf("%s (%s)", r.ID, r.Name)
	if r.Description != "" {
		title += ": " + r.Description
	}
	if r.Background {
		title += " · background"
	}
	return title
}

// agentStatus maps a lifecycle status to the ACP tool call status: the
// reducer alone says whether the agent is done.
func agentStatus(s lifecycle.Status) sdk.ToolCallStatus {
	switch s {
	case lifecycle.Pending:
		return sdk.ToolCallStatusPending
	case lifecycle.Completed:
		return sdk.ToolCallStatusCompleted
	case lifecycle.Error, lifecycle.Interrupted:
		return sdk.ToolCallStatusFailed
	default: // running, background
		return sdk.ToolCallStatusInProgress
	}
}

// agentContent shows the agent's task description, then what it does now
// (or its result or error once it ended).
func agentContent(r lifecycle.Record) []sdk.ToolCallContent {
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(contentText(r)))}
}

func contentText(r lifecycle.Record) string {
	lines := []string{r.Description}
	switch {
	case r.Status == lifecycle.Completed:
		lines = append(lines, "Result: "+r.Result)
	case r.Status == lifecycle.Error:
		lines = append(lines, "Error: "+r.Error)
	case r.Status == lifecycle.Interrupted:
		lines = append(lines, "Interrupted")
	case r.Status == lifecycle.Pending:
		lines = append(lines, "Waiting for a slot…")
	case r.Status == lifecycle.Waiting:
		lines = append(lines, "Waiting for the work it started…")
	case r.CurrentTool != "":
		lines = append(lines, fmt.Sprintf("%s · %d tool uses", r.CurrentTool, r.ToolUses))
	case r.Background:
		lines = append(lines, "Running in background…")
	default:
		lines = append(lines, "Initializing…")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// toolInput is the part of the file and shell tools' inputs shown.
type toolInput struct {
	FilePath    string `json:"file_path"`
	Path        string `json:"path"`
	Pattern     string `json:"pattern"`
	Command     string `json:"command"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Content     string `json:"content"`
}

func (t *translator) toolStart(callID string, d event.ToolStartData) sdk.SessionUpdate {
	var in toolInput
	_ = json.Unmarshal(d.Input, &in) // a tool without these fields shows its name only
	if d.Name == "task" {
		t.tasks[callID] = true
		title := "task"
		if task, _ := event.ParseTaskInput(d.Input); task.Description != "" {
			title += ": " + task.Description
		}
		return sdk.StartToolCall(sdk.ToolCallId(callID), title, sdk.WithStartKind(sdk.ToolKindOther),
			sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartRawInput(json.RawMessage(d.Input)))
	}
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(toolKind(d.Name)), sdk.WithStartStatus(sdk.ToolCallStatusInProgress)}
	if len(d.Input) > 0 {
		opts = append(opts, sdk.WithStartRawInput(json.RawMessage(d.Input)))
	}
	path := firstNonEmpty(in.FilePath, in.Path)
	if path != "" {
		path = t.abs(path)
		opts = append(opts, sdk.WithStartLocations([]sdk.ToolCallLocation{{Path: path}}))
		if toolKind(d.Name) == sdk.ToolKindEdit && t.edits != nil {
			t.paths[callID] = path
			t.edits.started(callID, path)
		}
	}
	return sdk.StartToolCall(sdk.ToolCallId(callID), toolTitle(d.Name, in, path), opts...)
}

func (t *translator) toolComplete(callID string, d event.ToolCompleteData) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	text := d.Result
	if !d.Success {
		status = sdk.ToolCallStatusFailed
		text = firstNonEmpty(d.Error, d.Result)
	}
	var content []sdk.ToolCallContent
	if len(d.Images) > 0 {
		text = withoutImageLines(text, d.Images)
	}
	if text != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(text)))
	}
	for _, img := range d.Images {
		content = append(content, sdk.ToolContent(sdk.ImageBlock(base64.StdEncoding.EncodeToString(img.Data), img.MediaType)))
	}
	if path, ok := t.paths[callID]; ok {
		delete(t.paths, callID)
		old, hadOld, now, ok := t.edits.finished(callID, path)
		switch {
		case !ok || !d.Success:
		case hadOld:
			content = append(content, sdk.ToolDiffContent(path, now, old))
		default:
			content = append(content, sdk.ToolDiffContent(path, now))
		}
	}
	return sdk.UpdateToolCall(sdk.ToolCallId(callID), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content),
		sdk.WithUpdateRawOutput(map[string]any{"result": text}))
}

// withoutImageLines drops the lines that name the result's images to
// the model ("[image image/png, 4033 bytes]"): the client gets the
// images themselves.
func withoutImageLines(text string, images []event.ToolImage) string {
	names := map[string]bool{}
	for _, img := range images {
		names[fmt.Sprintf("[image %s, %d bytes]", img.MediaType, len(img.Data))] = true
	}
	lines := strings.Split(text, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return names[l] }), "\n")
}

func (t *translator) abs(p string) string {
	if filepath.IsAbs(p) || t.root == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(t.root, p)
}

// toolKind is the ACP kind of one of Atomic's tools.
func toolKind(name string) sdk.ToolKind {
	switch name {
	case "read", "ls":
		return sdk.ToolKindRead
	case "write", "edit", "multi_edit":
		return sdk.ToolKindEdit
	case "grep", "glob":
		return sdk.ToolKindSearch
	case "bash":
		return sdk.ToolKindExecute
	case "web_fetch":
		return sdk.ToolKindFetch
	case "todo_write":
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

func toolTitle(name string, in toolInput, path string) string {
	switch {
	case in.Command != "":
		return name + ": " + in.Command
	case path != "":
		return name + " " + path
	case in.Pattern != "":
		return name + " " + in.Pattern
	case in.URL != "":
		return name + " " + in.URL
	}
	return name
}

// plan is the lead's todo list as an ACP plan.
func plan(todos []event.Todo) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(todos))
	for _, td := range todos {
		st := sdk.PlanEntryStatusPending
		switch td.Status {
		case "in_progress":
			st = sdk.PlanEntryStatusInProgress
		case "completed":
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: td.Content, Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	return sdk.UpdatePlan(entries...)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
