package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/loopback"
)

const acpFanOut = `
rules:
  - name: lead-final
    match: {tools_include: [task], has_tool_results: true}
    respond: {text: "All three reported."}
  - name: lead-fanout
    match: {tools_include: [task]}
    respond:
      tool_calls:
        - {name: task, input: {description: "Find auth code", prompt: "TASK-A find the auth code", subagent_type: explore}}
        - {name: task, input: {description: "Find db code", prompt: "TASK-B find the db code", subagent_type: explore}}
        - {name: task, input: {description: "Find ui code", prompt: "TASK-C find the ui code", subagent_type: explore}}
  - {name: sub-a, match: {tools_exclude: [task], first_user_contains: TASK-A}, respond: {text: "auth is in auth.go", delay_ms: DELAY}}
  - {name: sub-b, match: {tools_exclude: [task], first_user_contains: TASK-B}, respond: {text: "db is in db.go", delay_ms: DELAY}}
  - {name: sub-c, match: {tools_exclude: [task], first_user_contains: TASK-C}, respond: {text: "ui is in ui.go", delay_ms: DELAY}}
`

func TestACPPromptShowsThreeParallelSubagentsAsToolCallsEachCompletedAfterItsModelAnswered(t *testing.T) {
	srv := server(t, strings.ReplaceAll(acpFanOut, "DELAY", "700"))
	client := &acpClient{}
	a := startACP(t, srv, t.TempDir(), client)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	init, s := a.session(t, ctx, dir, sdk.ClientCapabilities{})
	if init.AgentInfo == nil || init.AgentInfo.Name != "atomic" {
		t.Errorf("initialize: agentInfo %+v, want atomic", init.AgentInfo)
	}
	resp, err := a.prompt(ctx, s.SessionId, "survey the code")
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", resp.StopReason)
	}
	ups := client.seen()
	if got := agentText(ups); !strings.Contains(got, "All three reported.") {
		t.Errorf("agent text %q lacks the lead's final answer", got)
	}
	byID, most := calls(ups)
	if most != 3 {
		t.Errorf("at most %d tool calls were in progress at once, want the three sub-agents", most)
	}
	answered := map[string]loopback.LogEntry{}
	for _, rule := range []string{"sub-a", "sub-b", "sub-c"} {
		e := loopback.ByRule(srv.Log(), rule)
		if len(e) != 1 {
			t.Fatalf("%s: %d requests, want 1", rule, len(e))
		}
		answered[rule] = e[0]
	}
	want := map[string]struct{ rule, result string }{
		"Find auth code": {"sub-a", "auth is in auth.go"},
		"Find db code":   {"sub-b", "db is in db.go"},
		"Find ui code":   {"sub-c", "ui is in ui.go"},
	}
	found := 0
	for id, c := range byID {
		var w struct{ rule, result string }
		var desc string
		for d, x := range want {
			if strings.Contains(c.title, d) {
				w, desc = x, d
			}
		}
		if desc == "" {
			continue
		}
		found++
		if c.status() != sdk.ToolCallStatusCompleted {
			t.Errorf("%s (%s): statuses %v, want completed last", id, desc, c.statuses)
		}
		if c.statuses[0] == sdk.ToolCallStatusCompleted {
			t.Errorf("%s: completed from its first update", id)
		}
		if end := answered[w.rule].End; c.doneAt.Before(end) {
			t.Errorf("%s: completed at %s, before its model answered at %s", id, c.doneAt.Format(time.StampMicro), end.Format(time.StampMicro))
		}
		all := strings.Join(c.content, "\n")
		if !strings.Contains(all, desc) || !strings.Contains(all, w.result) {
			t.Errorf("%s: content %q should show its description and its result %q", id, all, w.result)
		}
	}
	if found != 3 {
		t.Errorf("%d sub-agent tool calls, want 3: %v", found, byID)
	}
}
