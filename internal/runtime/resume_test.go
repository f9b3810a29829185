package runtime

import (
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/provider"
)

// crashed is a stored session whose process died while explore-1 (in the
// background) and teammate alice were at work; plan-1 had finished.
func crashed() *Resume {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ev := func(typ event.Type, agent string, data any) event.Event {
		at = at.Add(time.Second)
		e := event.Event{Type: typ, Time: at, SessionID: "s-old", AgentID: agent, Data: data}
		if agent != event.LeadID {
			e.ParentAgentID, e.SessionID = event.LeadID, "s-old/"+agent
		}
		return e
	}
	return &Resume{
		Events: []event.Event{
			ev(event.SubagentStart, "plan-1", event.SubagentStartData{AgentType: "Plan", Description: "plan"}),
			ev(event.SubagentComplete, "plan-1", event.SubagentCompleteData{Success: true, Result: "planned",
				Usage: event.Usage{InputTokens: 300, OutputTokens: 30}}),
			ev(event.SubagentStart, "explore-1", event.SubagentStartData{AgentType: "Explore", Description: "look", Background: true}),
			ev(event.SubagentUpdate, "explore-1", event.SubagentUpdateData{ToolUses: 2, Usage: event.Usage{InputTokens: 200, OutputTokens: 20}}),
			ev(event.TeammateStatus, "alice", event.TeammateStatusData{Name: "alice", Status: "working"}),
			ev(event.UsageUpdate, event.LeadID, event.UsageUpdateData{Usage: event.Usage{InputTokens: 500, OutputTokens: 50},
				Total: event.Usage{InputTokens: 1000, OutputTokens: 100}}),
		},
		History: []provider.Message{
			{Role: provider.RoleUser, Parts: []provider.Part{{Text: "first question"}}},
			{Role: provider.RoleAssistant, Parts: []provider.Part{{ToolCall: &provider.ToolCall{ID: "toolu_cut", Name: "bash", Input: []byte(`{"command":"sleep 100"}`)}}}},
		},
	}
}

func TestResumeContinuesTheLeadsHistoryAndEndsStaleWorkInterrupted(t *testing.T) {
	h := start(t, `
rules:
  - {name: resumed, match: {any_user_contains: "first question", last_user_contains: "follow up", tool_results_contain_all: ["Atomic exited"]}, respond: {text: "continued", usage: {input_tokens: 10, output_tokens: 5}}}
  - {name: lost, respond: {text: "history lost"}}
`, Config{SessionID: "s-old", Resume: crashed()})
	h.rt.Submit("follow up")
	out := h.await(t)
	if out.Err != nil || out.Result != "continued" {
		t.Fatalf("outcome %+v; want the lead to answer from its restored history", out)
	}
	if want := (event.Usage{InputTokens: 1010, OutputTokens: 105}); out.Usage.InputTokens != want.InputTokens || out.Usage.OutputTokens != want.OutputTokens {
		t.Fatalf("usage %+v; want the stored total plus this turn's, %+v", out.Usage, want)
	}
	var ended, statuses []string
	mate := ""
	for _, e := range h.events() {
		switch e.Type {
		case event.SubagentComplete:
			d, _ := event.Payload[event.SubagentCompleteData](e.Data)
			if !d.Cancelled || d.Error != InterruptedReason {
				t.Fatalf("%s ended %+v; want cancelled with %q", e.AgentID, d, InterruptedReason)
			}
			ended = append(ended, e.AgentID)
		case event.AgentStatus:
			d, _ := event.Payload[lifecycle.StatusData](e.Data)
			statuses = append(statuses, e.AgentID+":"+string(d.Status))
			if d.Agent.Error != InterruptedReason || d.Agent.Duration != 0 && d.Agent.StartedAt.IsZero() {
				t.Fatalf("agent.status %+v; want the reason", d.Agent)
			}
		case event.TeammateStatus:
			d, _ := event.Payload[event.TeammateStatusData](e.Data)
			mate = d.Name + ":" + d.Status + ":" + d.Error
		}
	}
	if len(ended) != 1 || ended[0] != "explore-1" || len(statuses) != 1 || statuses[0] != "explore-1:interrupted" {
		t.Fatalf("ended %q, statuses %q; want only explore-1, interrupted (plan-1 had finished)", ended, statuses)
	}
	if mate != "alice:interrupted:"+InterruptedReason {
		t.Fatalf("teammate status %q; want alice interrupted with the reason", mate)
	}
	checkGating(t, h.events())
}

func TestAResumedSessionsNewAgentsNeverReuseAnOldId(t *testing.T) {
	h := start(t, `
rules:
  - {name: final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "done"}}
  - {name: fanout, match: {system_contains: "You are Atomic"}, respond: {tool_calls: [{name: task, input: {description: "again", prompt: "SUB", subagent_type: explore}}]}}
  - {name: sub, respond: {text: "found"}}
`, Config{SessionID: "s-old", Resume: crashed()})
	h.rt.Submit("go")
	h.await(t)
	for _, e := range h.events() {
		if e.Type == event.SubagentStart && e.AgentID != "explore-2" {
			t.Fatalf("new sub-agent named %s; want explore-2 (explore-1 is the stored session's)", e.AgentID)
		}
	}
	if r, ok := h.rt.Bus().Agent("explore-2"); !ok || r.Status != lifecycle.Completed {
		t.Fatalf("explore-2: %+v, %v; want it completed", r, ok)
	}
}

func TestResumeTaskContinuesAnInterruptedBackgroundAgentAndTheLeadGetsItsResult(t *testing.T) {
	res := crashed()
	res.Subagents = map[string][]provider.Message{"explore-1": {
		{Role: provider.RoleUser, Parts: []provider.Part{{Text: "SLOW LOOK around"}}},
		{Role: provider.RoleAssistant, Parts: []provider.Part{{ToolCall: &provider.ToolCall{ID: "toolu_sub", Name: "bash", Input: []byte(`{"command":"sleep 100"}`)}}}},
	}}
	h := start(t, `
rules:
  - {name: notified, match: {last_user_contains: "found it after all"}, respond: {text: "final: found it after all"}}
  - {name: sub, match: {any_user_contains: "SLOW LOOK", last_user_contains: "Atomic was restarted", tool_results_contain_all: ["Atomic exited"]}, respond: {text: "found it after all"}}
  - {name: ack, match: {tools_include: [resume_task], has_tool_results: true}, respond: {text: "resumed it"}}
  - {name: resume, match: {tools_include: [resume_task], last_user_contains: "pick it up"}, respond: {tool_calls: [{name: resume_task, input: {task_id: explore-1}}]}}
  - {name: other, respond: {text: "unexpected request"}}
`, Config{SessionID: "s-old", Resume: res})
	h.rt.Submit("pick it up")
	out := h.await(t)
	if out.Err != nil || out.Result != "final: found it after all" {
		t.Fatalf("outcome %+v; want the lead to get the resumed task's result", out)
	}
	r, ok := h.rt.Bus().Agent("explore-2")
	if !ok || r.Status != lifecycle.Completed || r.Result != "found it after all" || !r.Background || r.Description != "look (resumed explore-1)" {
		t.Fatalf("explore-2: %+v, %v; want the resumed task, completed in the background", r, ok)
	}
	if err := h.rt.ResumeTask("explore-1"); err == nil {
		t.Fatal("explore-1 resumed twice")
	}
	checkGating(t, h.events())
}

func TestResumeTaskOfAnUnknownTaskNamesTheResumableOnes(t *testing.T) {
	res := crashed()
	res.Subagents = map[string][]provider.Message{"explore-1": {{Role: provider.RoleUser, Parts: []provider.Part{{Text: "x"}}}}}
	h := start(t, `rules: [{respond: {text: "hi"}}]`, Config{SessionID: "s-old", Resume: res})
	err := h.rt.ResumeTask("plan-1")
	if err == nil || !strings.Contains(err.Error(), `no interrupted task "plan-1"`) || !strings.Contains(err.Error(), "explore-1") {
		t.Fatalf("error %v; want plan-1 named and explore-1 offered", err)
	}
}

// A background task killed before its first message reached the store
// (its goroutine had not run, or it waited for a slot) has no saved
// history: it is still resumable, from the prompt its subagent.start
// recorded.
func TestResumeTaskContinuesABackgroundTaskKilledBeforeItsHistoryWasSavedFromItsPrompt(t *testing.T) {
	res := crashed()
	for i, e := range res.Events {
		if e.Type == event.SubagentStart && e.AgentID == "explore-1" {
			res.Events[i].Data = event.SubagentStartData{AgentType: "Explore", Description: "look", Prompt: "SLOW LOOK around", Background: true}
		}
	}
	h := start(t, `
rules:
  - {name: notified, match: {last_user_contains: "found it after all"}, respond: {text: "final: found it after all"}}
  - {name: sub, match: {first_user_contains: "SLOW LOOK", last_user_contains: "Atomic was restarted"}, respond: {text: "found it after all"}}
  - {name: ack, match: {tools_include: [resume_task], has_tool_results: true}, respond: {text: "resumed it"}}
  - {name: resume, match: {tools_include: [resume_task], last_user_contains: "pick it up"}, respond: {tool_calls: [{name: resume_task, input: {task_id: explore-1}}]}}
  - {name: other, respond: {text: "unexpected request"}}
`, Config{SessionID: "s-old", Resume: res})
	h.rt.Submit("pick it up")
	out := h.await(t)
	if out.Err != nil || out.Result != "final: found it after all" {
		t.Fatalf("outcome %+v; want the lead to get the resumed task's result", out)
	}
	r, ok := h.rt.Bus().Agent("explore-2")
	if !ok || r.Status != lifecycle.Completed || r.Result != "found it after all" || r.Description != "look (resumed explore-1)" {
		t.Fatalf("explore-2: %+v, %v; want the task resumed from its prompt, completed", r, ok)
	}
}

// Without a saved history or a recorded prompt there is nothing to
// continue: resume_task is not offered.
func TestAnInterruptedBackgroundTaskWithNeitherHistoryNorPromptIsNotResumable(t *testing.T) {
	h := start(t, `rules: [{respond: {text: "hi"}}]`, Config{SessionID: "s-old", Resume: crashed()})
	if err := h.rt.ResumeTask("explore-1"); err == nil || !strings.Contains(err.Error(), "nothing of this session can be resumed") {
		t.Fatalf("error %v; want nothing resumable", err)
	}
}
