package e2e

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// identityScenario: the lead starts a sync sub-agent, a background one and a
// teammate at once; the teammate reports and is shut down when idle; the
// lead ends once the background result and the team are done.
const identityScenario = `
rules:
  - name: ann-report
    match: {system_contains: "You are ann, a teammate", has_tool_results: false, last_user_contains: "Assignment"}
    respond: {tool_calls: [{name: send_message, input: {to: lead, content: "report from ann"}}], delay_ms: 200}
  - {name: ann-wait, match: {system_contains: "You are ann, a teammate", has_tool_results: true}, respond: {text: "waiting"}}
  - {name: ann-ack, match: {system_contains: "You are ann, a teammate"}, respond: {text: "ack"}}
  - name: lead-shutdown
    match: {system_contains: "You are Atomic", last_user_contains: "All teammates are idle", has_tool_results: false}
    respond: {tool_calls: [{name: shutdown_request, input: {to: ann}}]}
  - {name: lead-final, match: {system_contains: "You are Atomic", tool_result_contains: "Shutdown requested"}, respond: {text: "all done"}}
  - name: lead-start
    match: {system_contains: "You are Atomic", has_tool_results: false, last_user_contains: "go"}
    respond:
      tool_calls:
        - {name: task, input: {description: "Sync look", prompt: "SYNC look", subagent_type: explore}}
        - {name: task, input: {description: "Background look", prompt: "BG look", mode: background}}
        - {name: team_create, input: {name: crew}}
  - name: lead-spawn
    match: {system_contains: "You are Atomic", tool_result_contains: "crew"}
    respond: {tool_calls: [{name: team_spawn, input: {name: ann, role: worker, prompt: "Assignment for ann: report."}}]}
  - {name: lead-note, match: {system_contains: "You are Atomic"}, respond: {text: "noted"}}
  - {name: sub-sync, match: {first_user_contains: "SYNC look"}, respond: {text: "sync result", delay_ms: 300}}
  - {name: sub-bg, match: {first_user_contains: "BG look"}, respond: {text: "bg result", delay_ms: 600}}
`

// TestEverySubagentAndTeammateKeepsOneAgentIDAndItsOwnSessionInStreamJSON
// is the identity contract of SPEC §1: from the eager record at tool.start to
// the last event, a sub-agent or teammate is named by one agent_id (the id
// the lead and the user see) and carries its own session_id.
func TestEverySubagentAndTeammateKeepsOneAgentIDAndItsOwnSessionInStreamJSON(t *testing.T) {
	srv := server(t, identityScenario)
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "go", "--output-format", "stream-json", "--permission-mode", "bypassPermissions", "--teams")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	if len(evs) == 0 || evs[len(evs)-1].Type != event.Complete {
		t.Fatalf("the stream does not end with complete")
	}
	lead := ""
	sessions := map[string]string{} // agent id → its session
	statusCount := map[string]int{}
	for _, e := range evs {
		if e.AgentID == "lead" {
			if lead == "" {
				lead = e.SessionID
			}
			if e.SessionID != lead {
				t.Errorf("%s of the lead has session %q, want %q", e.Type, e.SessionID, lead)
			}
			continue
		}
		if e.AgentID == "" {
			continue
		}
		if strings.HasPrefix(e.AgentID, "toolu_") || strings.HasPrefix(e.AgentID, "call_") {
			t.Errorf("%s names an agent by its task call id %q", e.Type, e.AgentID)
		}
		if e.Type == event.AgentStatus {
			statusCount[e.AgentID]++
			if d := data[lifecycle.StatusData](t, e); d.Agent.ID != e.AgentID {
				t.Errorf("agent.status of %s carries the record of %s", e.AgentID, d.Agent.ID)
			}
		}
		if s, seen := sessions[e.AgentID]; !seen {
			sessions[e.AgentID] = e.SessionID
		} else if e.SessionID != s {
			t.Errorf("%s of %s has session %q, want %q as in its first event", e.Type, e.AgentID, e.SessionID, s)
		}
	}
	for _, id := range []string{"explore-1", "general-purpose-1", "team/ann"} {
		s, ok := sessions[id]
		if !ok {
			t.Errorf("no event names %s", id)
			continue
		}
		if s == "" || s == lead || !strings.HasSuffix(s, "/"+id) {
			t.Errorf("%s's session is %q, not its own (the lead's is %q)", id, s, lead)
		}
	}
	// Both sub-agents went through several statuses, all under one id.
	for _, id := range []string{"explore-1", "general-purpose-1"} {
		if statusCount[id] < 2 {
			t.Errorf("%s has %d agent.status events, want its first and its last under this id", id, statusCount[id])
		}
	}
	// The first agent.status of each sub-agent is the eager record at
	// tool.start, already under its id.
	for i, e := range evs {
		if e.Type != event.ToolStart || e.AgentID != "lead" {
			continue
		}
		d := data[event.ToolStartData](t, e)
		if d.Name != "task" {
			continue
		}
		if d.SubagentID == "" || i+1 >= len(evs) || evs[i+1].Type != event.AgentStatus || evs[i+1].AgentID != d.SubagentID {
			t.Errorf("task tool.start %s does not name its agent, or is not followed by that agent's status", e.ToolCallID)
		}
	}
}
