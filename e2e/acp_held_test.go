package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// heldThenChecked: the lead spawns a background task, and once it has
// ended (held for the next prompt: no request has taken it), reads its
// result with check_task alongside a bash call whose approval the client
// answers by cancelling the prompt, so no later request of that process
// takes the inbox.
const heldThenChecked = `
rules:
  - name: after-load
    match: {system_contains: "You are Atomic", last_user_contains: "anything new?"}
    respond: {text: "nothing new"}
  - name: checked
    match: {system_contains: "You are Atomic", tool_result_contains: "background result 42"}
    respond: {text: "read it"}
  - name: check
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond:
      delay_ms: 1500
      tool_calls:
        - {name: check_task, input: {task_id: general-purpose-1}}
        - {name: bash, input: {command: "touch never-approved"}}
  - name: spawn
    match: {system_contains: "You are Atomic"}
    respond: {tool_calls: [{name: task, input: {description: "Quick analysis", prompt: "BG-TASK", mode: background}}]}
  - name: sub
    match: {system_contains: "You are a sub-agent"}
    respond: {text: "background result 42"}
`

// loadAndPrompt loads session id in a new atomic acp on home, sends
// prompt there, and stops that agent.
func loadAndPrompt(t *testing.T, ctx context.Context, srv *loopback.Server, home, cwd string, id sdk.SessionId, prompt string) {
	t.Helper()
	b := startACP(t, srv, home, &acpClient{answer: allowLead})
	if _, err := b.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if _, err := b.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: cwd, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if r, err := b.prompt(ctx, id, prompt); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt %q after load: %+v, %v", prompt, r, err)
	}
	b.stop(t)
}

// lastUserTexts are the last user message of each request the rule
// answered.
func lastUserTexts(srv *loopback.Server, rule string) []string {
	var out []string
	for _, req := range loopback.ByRule(srv.Log(), rule) {
		out = append(out, req.Messages[len(req.Messages)-1].Text)
	}
	return out
}

// A held result the lead read with check_task before the session ended
// is not given to it again by the loaded session: the read is recorded.
func TestACPHeldResultTheLeadReadWithCheckTaskIsNotGivenAgainAfterLoad(t *testing.T) {
	srv := server(t, heldThenChecked)
	home, cwd := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := &acpClient{}
	a := startACP(t, srv, home, client)
	_, s := a.session(t, ctx, cwd, sdk.ClientCapabilities{})
	client.answer = func(sdk.RequestPermissionRequest) string {
		// The bash call beside check_task: cancel the prompt instead.
		_ = a.conn.Cancel(ctx, sdk.CancelNotification{SessionId: s.SessionId})
		return ""
	}
	r, err := a.prompt(ctx, s.SessionId, "start the analysis")
	if err != nil || r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("session/prompt: %+v, %v; want it cancelled at the bash approval", r, err)
	}
	byID, _ := calls(client.seen())
	read := false
	for _, c := range byID {
		if c.title != "" && strings.Contains(strings.Join(c.content, "\n"), "Task general-purpose-1: completed") &&
			strings.Contains(strings.Join(c.content, "\n"), "background result 42") {
			read = true
		}
	}
	if !read {
		t.Fatalf("check_task did not read the result before the cancel; calls %+v", byID)
	}
	a.stop(t)

	loadAndPrompt(t, ctx, srv, home, cwd, s.SessionId, "anything new?")
	got := lastUserTexts(srv, "after-load")
	if len(got) != 1 {
		t.Fatalf("%d requests answered the loaded session's prompt, want 1", len(got))
	}
	if strings.Contains(got[0], "background result 42") {
		t.Errorf("the loaded session's prompt gives the lead the result it already read again: %q", got[0])
	}
}

// A held result never read reaches the lead with the loaded session's
// next prompt, once: a second load of the session does not give it again.
func TestACPHeldResultNeverReadIsGivenOnceAcrossTwoLoads(t *testing.T) {
	srv := server(t, strings.Replace(backgroundAnalysis, "rules:\n",
		"rules:\n  - {name: second-load, match: {last_user_contains: \"anything else?\"}, respond: {text: \"nothing else\"}}\n", 1))
	home, cwd := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := &acpClient{}
	a := startACP(t, srv, home, client)
	_, s := a.session(t, ctx, cwd, sdk.ClientCapabilities{})
	if r, err := a.prompt(ctx, s.SessionId, "start the analysis"); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v, %v", r, err)
	}
	testkit.WaitFor(t, 20*time.Second, "the background call's end", func() bool {
		byID, _ := calls(client.seen())
		for _, c := range byID {
			if strings.Contains(c.title, "Slow analysis") && c.status() == sdk.ToolCallStatusCompleted {
				return true
			}
		}
		return false
	})
	a.stop(t)

	loadAndPrompt(t, ctx, srv, home, cwd, s.SessionId, "what did it say?")
	loadAndPrompt(t, ctx, srv, home, cwd, s.SessionId, "anything else?")
	given := lastUserTexts(srv, "lead-notified")
	if len(given) != 1 || !strings.Contains(given[0], "what did it say?") {
		t.Fatalf("the held result reached the lead in %d requests (%q), want 1: the first load's prompt", len(given), given)
	}
	again := lastUserTexts(srv, "second-load")
	if len(again) != 1 {
		t.Fatalf("%d requests answered the second load's prompt, want 1", len(again))
	}
	if strings.Contains(again[0], "background result 42") {
		t.Errorf("the second load gives the held result again: %q", again[0])
	}
}
