package acp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// ev is an event at sec seconds of agent (child of parent) on tool call call.
func ev(typ event.Type, sec float64, agent, parent, call string, data any) event.Event {
	return event.Event{Type: typ, Time: t0.Add(time.Duration(sec * float64(time.Second))), SessionID: "s1",
		AgentID: agent, ParentAgentID: parent, ToolCallID: call, Data: data}
}

// task is the lead's task call spawning agent id (tool.start, then the
// agent's subagent.start unless queued).
func task(sec float64, id, call, desc string, background, queued bool) []event.Event {
	mode := "sync"
	if background {
		mode = "background"
	}
	in, _ := json.Marshal(map[string]string{"description": desc, "prompt": "p", "subagent_type": "explore", "mode": mode})
	out := []event.Event{ev(event.ToolStart, sec, event.LeadID, "", call, event.ToolStartData{Name: "task", Input: in, SubagentID: id, Queued: queued})}
	if !queued {
		out = append(out, ev(event.SubagentStart, sec, id, event.LeadID, call,
			event.SubagentStartData{AgentType: "explore", Description: desc, Backend: "native", Background: background}))
	}
	return out
}

// tool is agent's own call of a tool, and its progress update naming it.
func tool(sec float64, agent, call, name string) []event.Event {
	return []event.Event{
		ev(event.ToolStart, sec, agent, event.LeadID, call, event.ToolStartData{Name: name}),
		ev(event.SubagentUpdate, sec, agent, event.LeadID, "", event.SubagentUpdateData{CurrentTool: name}),
	}
}

func done(sec float64, agent, call, result string) event.Event {
	return ev(event.SubagentComplete, sec, agent, event.LeadID, call, event.SubagentCompleteData{Success: true, Result: result})
}

func taskReturn(sec float64, call, result string) event.Event {
	return ev(event.ToolComplete, sec, event.LeadID, "", call, event.ToolCompleteData{Name: "task", Success: true, Result: result})
}

func join(groups ...any) []event.Event {
	var out []event.Event
	for _, g := range groups {
		switch v := g.(type) {
		case event.Event:
			out = append(out, v)
		case []event.Event:
			out = append(out, v...)
		}
	}
	return out
}

// sentFor is what a session sends the client for a run whose stored past
// is past and whose bus then carries live: the replay, then every update,
// each as its JSON on the wire.
func sentFor(t *testing.T, past, live []event.Event) []string {
	t.Helper()
	s := &session{tr: newTranslator("/w"), wake: make(chan struct{}, 1), perms: map[string]sdk.ToolCallId{}}
	s.replay(past, nil)
	b := bus.New()
	unsub := s.watch(b)
	for _, e := range live {
		b.Emit(e)
	}
	unsub()
	var out []string
	for _, it := range s.queue {
		if it.update == nil {
			continue
		}
		j, err := json.Marshal(*it.update)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(j))
	}
	return out
}

// agentCalls is the updates of tool calls other than the lead's own
// tools, summed up: "start|update <call> <status> <content>".
func agentCalls(t *testing.T, sent []string) []string {
	t.Helper()
	var out []string
	for _, s := range sent {
		var u struct {
			SessionUpdate string `json:"sessionUpdate"`
			ToolCallID    string `json:"toolCallId"`
			Status        string `json:"status"`
			Content       []struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		}
		if err := json.Unmarshal([]byte(s), &u); err != nil {
			t.Fatal(err)
		}
		if u.ToolCallID == "" || strings.HasPrefix(u.ToolCallID, "lead-") {
			continue
		}
		var text []string
		for _, c := range u.Content {
			text = append(text, c.Content.Text)
		}
		out = append(out, fmt.Sprintf("%s %s %s %q", u.SessionUpdate, u.ToolCallID, u.Status, strings.Join(text, "|")))
	}
	return out
}

// run is a lead's run: a sync agent that uses tools (one call id
// reported twice), a background one acknowledged before it works, one
// queued for a slot, one a CLI started without a task call of the lead,
// a tool of the lead's own, then an interrupt.
func run() []event.Event {
	bash, _ := json.Marshal(map[string]string{"command": "ls"})
	return join(
		ev(event.SessionStart, 0, event.LeadID, "", "", event.SessionStartData{Model: "m"}),
		task(1, "explore-1", "c1", "find", false, false),
		tool(2, "explore-1", "t1", "read"),
		ev(event.ToolStart, 2, "explore-1", event.LeadID, "t1", event.ToolStartData{Name: "read"}),
		tool(3, "explore-1", "t2", "grep"),
		ev(event.UsageUpdate, 3, "explore-1", event.LeadID, "", event.UsageUpdateData{Usage: event.Usage{InputTokens: 9}}),
		done(4, "explore-1", "c1", "found"), taskReturn(4, "c1", "found"),
		task(5, "explore-2", "c2", "watch", true, false), taskReturn(5, "c2", "spawned explore-2"),
		tool(6, "explore-2", "t3", "bash"),
		task(7, "explore-3", "c3", "wait", false, true),
		ev(event.SubagentStart, 7.5, "explore-3", event.LeadID, "c3", event.SubagentStartData{AgentType: "explore", Description: "wait"}),
		tool(7.5, "explore-3", "t4", "read"),
		ev(event.SubagentStart, 8, "claude-1/explore-1", "claude-1", "c9", event.SubagentStartData{AgentType: "Explore", Description: "nested"}),
		ev(event.ToolStart, 8, event.LeadID, "", "lead-b1", event.ToolStartData{Name: "bash", Input: bash}),
		ev(event.ToolComplete, 8, event.LeadID, "", "lead-b1", event.ToolCompleteData{Name: "bash", Success: true, Result: "a.go"}),
		ev(event.Interrupt, 9, event.LeadID, "", "", event.InterruptData{Reason: "user"}),
	)
}

func TestEverySubagentIsOneToolCallUpdatedWhenItsStatusOrWhatItDoesChanges(t *testing.T) {
	got := agentCalls(t, sentFor(t, nil, run()))
	want := []string{
		`tool_call c1 pending ""`,
		`tool_call_update c1 in_progress "find\nInitializing…"`,
		`tool_call_update c1  "find\nread · 1 tool uses"`,
		`tool_call_update c1  "find\nread · 2 tool uses"`, // t1 reported twice counted once: t2
		`tool_call_update c1  "find\ngrep · 2 tool uses"`,
		`tool_call_update c1 completed "find\nResult: found"`,
		`tool_call c2 pending ""`,
		`tool_call_update c2 in_progress "watch\nRunning in background…"`, // the ack does not end it
		`tool_call_update c2  "watch\nbash · 1 tool uses"`,
		`tool_call c3 pending ""`,
		`tool_call_update c3 pending "wait\nWaiting for a slot…"`,
		`tool_call_update c3 in_progress "wait\nread · 1 tool uses"`,
		`tool_call c9 in_progress "nested\nInitializing…"`,
		`tool_call_update c2 failed "watch\nInterrupted"`,
		`tool_call_update c3 failed "wait\nInterrupted"`,
		`tool_call_update c9 failed "nested\nInterrupted"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sub-agent tool call updates (-want +got):\n%s", diff)
	}
}

func TestAReplayedSubagentTheResumedRunEndsUpdatesItsReplayedToolCall(t *testing.T) {
	past := join(ev(event.SessionStart, 0, event.LeadID, "", "", event.SessionStartData{Model: "m"}),
		task(1, "explore-1", "c1", "watch", true, false), taskReturn(1, "c1", "spawned explore-1"),
		tool(2, "explore-1", "t1", "read"))
	// What the resumed run emits for it (runtime.interruptStale): its end,
	// and the status that end gives the stored record.
	var st lifecycle.State
	for _, e := range past {
		st.Apply(e)
	}
	rec, _ := st.Get("explore-1")
	end := ev(event.SubagentComplete, 10, "explore-1", event.LeadID, "c1",
		event.SubagentCompleteData{Cancelled: true, Error: "interrupted: Atomic exited before it finished"})
	next, _ := lifecycle.Step(rec, end)
	sent := sentFor(t, past, []event.Event{end, lifecycle.StatusEvent(end, next)})
	got := agentCalls(t, sent)
	want := []string{
		`tool_call c1 pending ""`,
		`tool_call_update c1 in_progress "watch\nRunning in background…"`,
		`tool_call_update c1  "watch\nread · 1 tool uses"`,
		`tool_call_update c1 failed "watch\nInterrupted"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sub-agent tool call updates (-want +got):\n%s", diff)
	}
	if last := sent[len(sent)-1]; !strings.Contains(last, `"rawOutput":{"error":"interrupted: Atomic exited before it finished","status":"interrupted"}`) {
		t.Errorf("the end's update %s does not say why it ended", last)
	}
}

func TestTheLeadsThinkingReachesTheClientAsThoughtChunksApartFromTheAnswer(t *testing.T) {
	got := sentFor(t, nil, []event.Event{
		ev(event.ThinkingDelta, 0, event.LeadID, "", "", event.ThinkingDeltaData{Text: "weighing it"}),
		ev(event.ThinkingDelta, 0, "explore-1", event.LeadID, "", event.ThinkingDeltaData{Text: "not the lead's"}),
		ev(event.MessageDelta, 1, event.LeadID, "", "", event.MessageDeltaData{Text: "answer"}),
	})
	want := []string{
		`{"content":{"text":"weighing it","type":"text"},"sessionUpdate":"agent_thought_chunk"}`,
		`{"content":{"text":"answer","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
}

func TestASubagentsOwnSubagentsToolCallIsAttachedToItsParentsAndAWaitingParentSaysSo(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"description": "check", "prompt": "p", "mode": "background"})
	sent := sentFor(t, nil, join(
		ev(event.SessionStart, 0, event.LeadID, "", "", event.SessionStartData{Model: "m"}),
		task(1, "general-purpose-1", "c1", "audit", true, false),
		ev(event.ToolStart, 2, "general-purpose-1", event.LeadID, "c5", event.ToolStartData{Name: "task", Input: in, SubagentID: "general-purpose-2"}),
		ev(event.SubagentStart, 2, "general-purpose-2", "general-purpose-1", "c5",
			event.SubagentStartData{AgentType: "general-purpose", Description: "check", Backend: "native", Background: true}),
		ev(event.SubagentUpdate, 3, "general-purpose-1", event.LeadID, "c1", event.SubagentUpdateData{Idle: true}),
	))
	var child struct {
		Meta map[string]string `json:"_meta"`
	}
	for _, s := range sent {
		if strings.Contains(s, `"sessionUpdate":"tool_call"`) && strings.Contains(s, `"toolCallId":"c5"`) {
			if err := json.Unmarshal([]byte(s), &child); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]string{"agentId": "general-purpose-2", "parentAgentId": "general-purpose-1", "parentToolCallId": "c1"}
	if diff := cmp.Diff(want, child.Meta); diff != "" {
		t.Errorf("the nested agent's tool call _meta (-want +got):\n%s", diff)
	}
	calls := agentCalls(t, sent)
	if last := calls[len(calls)-1]; last != `tool_call_update c1 in_progress "audit\nWaiting for the work it started…"` {
		t.Errorf("the waiting parent's last update is %s", last)
	}
}

func TestALeadToolsProgressReachesTheClientAsItsToolCallsContent(t *testing.T) {
	got := sentFor(t, nil, []event.Event{
		ev(event.ToolStart, 0, event.LeadID, "", "m1", event.ToolStartData{Name: "mcp__s__index"}),
		ev(event.ToolProgress, 1, event.LeadID, "", "m1", event.ToolProgressData{Name: "mcp__s__index", Progress: 3, Total: 10, Message: "files"}),
		ev(event.ToolProgress, 1, "explore-1", event.LeadID, "m2", event.ToolProgressData{Name: "mcp__s__index", Progress: 1}),
	})
	want := `{"content":[{"content":{"text":"3/10 · files","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"in_progress","toolCallId":"m1"}`
	if len(got) != 2 || got[1] != want {
		t.Errorf("updates = %q, want the start then %s", got, want)
	}
}
