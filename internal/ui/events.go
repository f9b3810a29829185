package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// taskTool is the name of the tool that spawns sub-agents.
const taskTool = "task"

// isLead reports whether an event comes from the lead.
func isLead(e event.Event) bool { return e.AgentID == event.LeadID || e.AgentID == "" }

// applyEvents folds a batch of bus events into the chat, in order.
func (m *Model) applyEvents(evs []event.Event) {
	for _, e := range evs {
		m.applyEvent(e)
	}
}

// applyEvent routes one event: the lead's text and tool calls to the
// transcript, task calls and agent.status records to the tree they belong
// to, team events to the team tree.
func (m *Model) applyEvent(e event.Event) {
	if m.clearing {
		// Everything before the runtime's reset belongs to the conversation
		// /clear threw away (the cancelled turn's last words included).
		if e.Type != event.Reset {
			return
		}
		m.clearing = false
	}
	if m.thinking != nil && isLead(e) && endsThinking(e.Type) {
		m.endThinking()
	}
	m.noteChange(e)
	if m.routeToTree(e) {
		return
	}
	switch e.Type {
	case event.ThinkingDelta:
		if d, ok := event.Payload[event.ThinkingDeltaData](e.Data); ok && isLead(e) {
			m.think(d)
		}
	case event.MessageDelta:
		if !isLead(e) {
			return
		}
		if d, ok := event.Payload[event.MessageDeltaData](e.Data); ok {
			a := m.stream()
			if d.Discard {
				a.set("")
			}
			a.append(d.Text)
		}
	case event.MessageComplete:
		if !isLead(e) {
			return
		}
		d, _ := event.Payload[event.MessageCompleteData](e.Data)
		cutOff := d.StopReason == event.StopInterrupted
		if m.streaming == nil && cutOff && m.cut != nil {
			// The interrupt ended this message's entry already: its
			// complete (the partial text) belongs there, not in a second.
			m.streaming = m.cut
		}
		m.cut = nil
		if m.streaming == nil && strings.TrimSpace(d.Text) != "" {
			m.stream()
		}
		if m.streaming != nil {
			if d.Text != "" || !cutOff {
				m.streaming.set(d.Text)
			}
			if cutOff {
				m.streaming.markInterrupted()
			}
			m.streaming.streaming = false
			m.streaming = nil
		}
		m.leadSeq++ // the next task calls belong to a new message
	case event.ToolStart:
		if !isLead(e) {
			return
		}
		d, _ := event.Payload[event.ToolStartData](e.Data)
		t := &toolEntry{name: d.Name, subject: m.subject(d.Name, d.Input)}
		m.tools[e.ToolCallID] = t
		m.tr.add(t)
	case event.ToolComplete:
		t, ok := m.tools[e.ToolCallID]
		if !ok || !isLead(e) {
			return
		}
		d, _ := event.Payload[event.ToolCompleteData](e.Data)
		switch {
		case d.Success:
			t.state, t.result = toolOK, d.Result
		case d.Cancelled:
			t.state, t.result = toolCancelled, d.Error
		default:
			t.state, t.result = toolFailed, firstNonEmpty(d.Error, d.Result)
		}
		t.version++
		delete(m.tools, e.ToolCallID)
	case event.ToolProgress:
		// A sub-agent's progress reaches its row through its record.
		if t, ok := m.tools[e.ToolCallID]; ok && isLead(e) {
			if d, ok := event.Payload[event.ToolProgressData](e.Data); ok {
				t.progress = oneLine(d.Line())
				t.version++
			}
		}
	case event.PlanUpdate:
		m.applyPlan(e)
	case event.UsageUpdate:
		if d, ok := event.Payload[event.UsageUpdateData](e.Data); ok {
			m.usage.update(e.AgentID, d)
			if t := m.treeByAgent[e.AgentID]; t != nil && d.Context > 0 {
				t.setContext(e.AgentID, m.usage.agents[e.AgentID])
			}
		}
	case event.TurnEnd:
		if isLead(e) {
			m.busy = false
			m.streaming, m.cut = nil, nil
		}
	case event.Error:
		if d, ok := event.Payload[event.ErrorData](e.Data); ok && isLead(e) {
			m.note(noteError, "Error: "+d.Message)
		}
	case event.Interrupt:
		if m.streaming != nil {
			// The lead's message stops here; its complete, which follows
			// with the partial text, updates this entry.
			m.streaming.markInterrupted()
			m.streaming.streaming = false
			m.cut = m.streaming
		}
		m.streaming = nil
		for _, t := range m.tools {
			t.state, t.result = toolCancelled, "interrupted"
			t.version++
		}
		clear(m.tools)
		m.note(noteWarning, "Interrupted · what should Atomic do instead?")
	case event.ContextCompact:
		m.applyCompact(e)
	case event.HookRun:
		m.applyHook(e)
	case event.TeammateRecord:
		if mt, ok := lifecycle.TeammateOf(e); ok {
			m.teamTree().set(mt)
		}
	case event.TeamMessage:
		if d, ok := event.Payload[event.TeamMessageData](e.Data); ok {
			m.teamTree().message(d)
			if d.To == event.LeadID && d.From != event.LeadID {
				m.note(noteInfo, fmt.Sprintf("✉ %s → lead: %s", d.From, oneLine(d.Content)))
			}
		}
	case event.SessionStart:
		if d, ok := event.Payload[event.SessionStartData](e.Data); ok && isLead(e) {
			if d.Model != "" {
				m.model = d.Model
			}
			m.leadBackend = backendOf(d.Provider)
		}
	}
}

// routeToTree places e in the agents tree it concerns and reports whether
// it was consumed. A task call of the lead joins the tree of the assistant
// message that made it (a new tree at that point of the transcript for a
// new message); a sub-agent's own calls join its tree's expanded view.
// The records a tree shows come only from agent.status events, each the
// bus reducer's record of one agent, found by task call id or agent id: no
// tree re-derives a status from the events themselves.
func (m *Model) routeToTree(e event.Event) bool {
	switch e.Type {
	case event.ToolStart:
		d, ok := event.Payload[event.ToolStartData](e.Data)
		if !ok {
			return false
		}
		if !strings.EqualFold(d.Name, taskTool) || e.ToolCallID == "" {
			if t := m.treeByAgent[e.AgentID]; t != nil && !isLead(e) {
				t.call(e.AgentID, strings.TrimSpace(d.Name+" "+m.subject(d.Name, d.Input)))
				return true
			}
			return false
		}
		t := m.treeByAgent[e.AgentID] // a sub-agent's own task call joins its tree
		if t == nil {
			t = m.openTree
			if t == nil || m.openSeq != m.leadSeq || !isLead(e) {
				t = m.newTree()
				if isLead(e) {
					m.openTree, m.openSeq = t, m.leadSeq
				}
			}
		}
		m.treeByCall[e.ToolCallID] = t
		if d.SubagentID != "" {
			m.treeByAgent[d.SubagentID] = t
		}
		return true
	case event.SubagentStart:
		t := m.treeOf(e.ToolCallID, e.AgentID)
		if t == nil {
			// A sub-agent started without a task call we saw: give it a tree.
			t = m.newTree()
			if e.ToolCallID != "" {
				m.treeByCall[e.ToolCallID] = t
			}
		}
		if e.AgentID != "" {
			m.treeByAgent[e.AgentID] = t
		}
		return true
	case event.ShellStart:
		m.shellTree(e)
		return true
	case event.ShellOutput, event.ShellEnd:
		return true // the shell's record follows as agent.status
	case event.SubagentUpdate, event.SubagentComplete:
		return true // the agent's record follows as agent.status
	case event.ToolComplete:
		return m.treeByCall[e.ToolCallID] != nil
	case event.AgentStatus:
		r, ok := lifecycle.RecordOf(e)
		if !ok {
			return true
		}
		t := m.treeOf(r.ToolCallID, r.ID)
		if t == nil {
			return true // an agent cleared away (/clear), or never shown
		}
		if r.ID != "" {
			m.treeByAgent[r.ID] = t
		}
		old, found := t.put(r)
		m.notifyFinished(old, found, r)
		return true
	}
	return false
}

// shellTree places a background shell's row: under its agent's row when
// that agent is in a tree, else in the lead's open tree or a new one.
func (m *Model) shellTree(e event.Event) {
	t := m.treeByAgent[e.ParentAgentID]
	if t == nil {
		t = m.openTree
		if t == nil || m.openSeq != m.leadSeq {
			t = m.newTree()
			m.openTree, m.openSeq = t, m.leadSeq
		}
	}
	m.treeByAgent[e.AgentID] = t
}

// treeOf is the tree of task call callID, else of agent id.
func (m *Model) treeOf(callID, id string) *treeEntry {
	if t := m.treeByCall[callID]; t != nil && callID != "" {
		return t
	}
	if id == "" {
		return nil
	}
	return m.treeByAgent[id]
}

// newTree adds an agents tree at the end of the transcript.
func (m *Model) newTree() *treeEntry {
	t := &treeEntry{}
	m.trees = append(m.trees, t)
	m.tr.add(t)
	return t
}

// notifyFinished adds a notification when a background agent really
// finished, its session ended: "explore-1 finished (34s)", or failed with
// its error.
func (m *Model) notifyFinished(old lifecycle.Record, found bool, r lifecycle.Record) {
	if !r.Background || r.Session != lifecycle.SessionClosed || found && old.Session == lifecycle.SessionClosed {
		return
	}
	switch r.Status {
	case lifecycle.Completed:
		m.note(noteSuccess, fmt.Sprintf("%s finished (%s)", r.ID, lifecycle.FormatDuration(r.Duration)))
	case lifecycle.Error:
		m.note(noteError, fmt.Sprintf("%s failed (%s): %s", r.ID, lifecycle.FormatDuration(r.Duration), oneLine(r.Error)))
	}
}

// stream returns the streaming assistant message, starting one.
func (m *Model) stream() *assistantEntry {
	if m.streaming == nil {
		m.streaming = &assistantEntry{streaming: true}
		m.tr.add(m.streaming)
	}
	return m.streaming
}

// teamTree returns the team tree, placing it where the first team event
// arrived.
func (m *Model) teamTree() *teamEntry {
	if m.team == nil {
		m.team = &teamEntry{}
		m.tr.add(m.team)
	}
	return m.team
}

// note adds a UI line to the transcript.
func (m *Model) note(kind noteKind, text string) {
	m.tr.add(&noteEntry{kind: kind, text: text})
}

// subject is the argument of a tool call that matters, for its compact line.
func (m *Model) subject(tool string, input json.RawMessage) string {
	if m.cfg.Subject != nil {
		if s := m.cfg.Subject(tool, input); s != "" {
			return s
		}
	}
	return inputSubject(input)
}

// inputSubject picks the telling argument from a tool input by name.
func inputSubject(input json.RawMessage) string {
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	for _, k := range []string{"command", "file_path", "path", "pattern", "url", "query", "task_id", "to", "name", "description"} {
		if v, ok := in[k].(string); ok && v != "" {
			return oneLine(v)
		}
	}
	return ""
}

// working reports whether the lead is at work: its record, as the run's
// reducer has it, is running (a turn of a prompt, or one background work
// woke it for), or a prompt was just submitted.
func (m *Model) working() bool {
	if m.busy {
		return true
	}
	if m.cfg.Backend == nil {
		return false
	}
	r, ok := m.cfg.Backend.Lead()
	return ok && r.Status == lifecycle.Running
}

// activeAgents counts sub-agents pending, running or in the background.
func (m *Model) activeAgents() int {
	n := 0
	for _, t := range m.trees {
		n += t.recs.Active()
	}
	return n
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
