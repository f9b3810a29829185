package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// Each flow runs with the ACP Go SDK's client and with the official
// TypeScript library's, which validates every message Atomic sends.

func TestACPPromptShowsThreeParallelSubagentsAsToolCallsEachCompletedAfterItsModelAnswered(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, threeExploreAgents)
			r := d.run(t, srv, t.TempDir(), acpFlow{Cwd: t.TempDir(), Prompt: "survey the code"})
			if r.err != "" || r.stop != sdk.StopReasonEndTurn {
				t.Fatalf("session/prompt: stop %q, error %q; want end_turn", r.stop, r.err)
			}
			if got := agentText(r.updates); !strings.Contains(got, "All three reported.") {
				t.Errorf("agent text %q lacks the lead's final answer", got)
			}
			byID, most := calls(r.updates)
			if most != 3 {
				t.Errorf("at most %d tool calls were in progress at once, want the three sub-agents", most)
			}
			want := map[string]struct{ rule, result string }{
				"Find auth code": {"sub-a", "auth is in auth.go"},
				"Find db code":   {"sub-b", "db is in db.go"},
				"Find ui code":   {"sub-c", "ui is in ui.go"},
			}
			for desc, w := range want {
				c := callTitled(t, byID, desc)
				if c == nil {
					continue
				}
				if c.status() != sdk.ToolCallStatusCompleted || c.statuses[0] == sdk.ToolCallStatusCompleted {
					t.Errorf("%s: statuses %v, want in progress, then completed", desc, c.statuses)
				}
				answered := loopback.ByRule(srv.Log(), w.rule)
				if len(answered) != 1 {
					t.Fatalf("%s: %d requests, want 1", w.rule, len(answered))
				}
				if end := answered[0].End.Truncate(time.Millisecond); c.doneAt.Before(end) {
					t.Errorf("%s: completed at %s, before its model answered at %s", desc, c.doneAt.Format(time.StampMicro), end.Format(time.StampMicro))
				}
				if all := strings.Join(c.content, "\n"); !strings.Contains(all, desc) || !strings.Contains(all, w.result) {
					t.Errorf("%s: content %q should show its description and its result %q", desc, all, w.result)
				}
			}
		})
	}
}

// callTitled is the one tool call whose title holds s.
func callTitled(t *testing.T, byID map[sdk.ToolCallId]*call, s string) *call {
	t.Helper()
	var found *call
	for _, c := range byID {
		if strings.Contains(c.title, s) {
			if found != nil {
				t.Errorf("two tool calls titled %q", s)
			}
			found = c
		}
	}
	if found == nil {
		t.Errorf("no tool call titled %q", s)
	}
	return found
}

func TestACPBackgroundResultCompletesItsToolCallAndTheLeadsFollowUpWaitsForTheNextPrompt(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, backgroundAnalysis)
			r := d.run(t, srv, t.TempDir(), acpFlow{Cwd: t.TempDir(), Prompt: "start the analysis", WaitCall: "Slow analysis",
				After: []string{"what did it say?"}})
			if r.err != "" || r.stop != sdk.StopReasonEndTurn {
				t.Fatalf("session/prompt: stop %q, error %q", r.stop, r.err)
			}
			var atReturn, between, next []seenUpdate
			for _, u := range r.updates {
				switch {
				case !u.at.After(r.returned):
					atReturn = append(atReturn, u)
				case u.at.Before(r.sent):
					between = append(between, u)
				default:
					next = append(next, u)
				}
			}
			before, _ := calls(atReturn)
			if c := callTitled(t, before, "Slow analysis"); c != nil && c.status() != sdk.ToolCallStatusInProgress {
				t.Errorf("when the turn returned the background sub-agent was %v, want in_progress (its spawn acknowledgement is not its end)", c.statuses)
			}
			if text := agentText(between); text != "" {
				t.Errorf("between prompts the client got the lead's text %q: no prompt was pending", text)
			}
			after, _ := calls(r.updates)
			c := callTitled(t, after, "Slow analysis")
			if c == nil {
				return
			}
			if c.status() != sdk.ToolCallStatusCompleted {
				t.Fatalf("background sub-agent ended %v, want completed", c.statuses)
			}
			if end := loopback.ByRule(srv.Log(), "sub")[0].End.Truncate(time.Millisecond); c.doneAt.Before(end) {
				t.Errorf("completed before its model answered")
			}
			if all := strings.Join(c.content, "\n"); !strings.Contains(all, "background result 42") {
				t.Errorf("content %q lacks the result", all)
			}
			// Said again as the next prompt starts: clients that keep only
			// a prompt's updates (acpx) learn it ended.
			again, _ := calls(next)
			if c := callTitled(t, again, "Slow analysis"); c != nil && c.status() != sdk.ToolCallStatusCompleted {
				t.Errorf("the next prompt's updates end the background call %v, want completed", c.statuses)
			}
			if got := agentText(next); got != "The background task said 42." {
				t.Errorf("the next prompt's answer %q, want only the lead's follow-up on the result", got)
			}
			woke := loopback.ByRule(srv.Log(), "lead-notified")
			if len(woke) != 1 {
				t.Fatalf("%d requests carried the result, want 1 (the next prompt's)", len(woke))
			}
			if last := woke[0].Messages[len(woke[0].Messages)-1].Text; !strings.Contains(last, "what did it say?") || !strings.Contains(last, "<task-notification>") {
				t.Errorf("the next prompt's message %q should carry the prompt and the held result", last)
			}
		})
	}
}

// A background result held for the next prompt survives atomic acp
// exiting first: the session loaded in a new agent gives it to the lead
// with its next prompt, once.
func TestACPBackgroundResultHeldWhenTheAgentExitsReachesTheLeadWithTheLoadedSessionsNextPrompt(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, backgroundAnalysis)
			r := d.run(t, srv, t.TempDir(), acpFlow{Cwd: t.TempDir(), Prompt: "start the analysis", WaitCall: "Slow analysis",
				Load: true, LoadPrompt: "what did it say?"})
			if r.err != "" || r.stop != sdk.StopReasonEndTurn {
				t.Fatalf("session/prompt: stop %q, error %q", r.stop, r.err)
			}
			if r.loadStop != sdk.StopReasonEndTurn {
				t.Fatalf("the loaded session's prompt: stop %q", r.loadStop)
			}
			woke := loopback.ByRule(srv.Log(), "lead-notified")
			if len(woke) != 1 {
				t.Fatalf("%d requests carried the held result, want 1 (the loaded session's prompt); log %+v", len(woke), srv.Log())
			}
			if last := woke[0].Messages[len(woke[0].Messages)-1].Text; !strings.Contains(last, "what did it say?") || !strings.Contains(last, "background result 42") {
				t.Errorf("the loaded session's prompt %q should carry the prompt and the held result", last)
			}
			if !strings.Contains(agentText(r.replayed), "The background task said 42.") {
				t.Errorf("the loaded session answered %q, want the lead's follow-up on the result", agentText(r.replayed))
			}
		})
	}
}

func TestACPSessionCreatedButNeverPromptedLoadsInANewAgentAndContinues(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, `rules: [{name: answer, respond: {text: "answered in the loaded session"}}]`)
			// A fresh home: no atomic.db yet when the first agent starts.
			r := d.run(t, srv, t.TempDir(), acpFlow{Cwd: t.TempDir(), Load: true, LoadPrompt: "FIRST question"})
			if r.loadStop != sdk.StopReasonEndTurn || !strings.Contains(agentText(r.replayed), "answered in the loaded session") {
				t.Fatalf("after loading the unprompted session: stop %q, text %q", r.loadStop, agentText(r.replayed))
			}
		})
	}
}

func TestACPApprovalsOfTheLeadAndASubagentGoToTheClientLabelledAndAreObeyed(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, `
rules:
  - name: lead-final
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "done"}
  - name: lead-start
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: bash, input: {command: "touch allowed.txt", description: "make a file"}}
        - {name: task, input: {description: "Make another file", prompt: "SUB-MAKE", subagent_type: general-purpose}}
  - name: sub-after
    match: {system_contains: "You are a sub-agent", has_tool_results: true}
    respond: {text: "it was refused"}
  - name: sub-start
    match: {system_contains: "You are a sub-agent"}
    respond:
      tool_calls:
        - {name: bash, input: {command: "touch rejected.txt", description: "make a file"}}
`)
			dir := t.TempDir()
			r := d.run(t, srv, t.TempDir(), acpFlow{Cwd: dir, Prompt: "make the files"})
			if r.err != "" {
				t.Fatalf("session/prompt: %s", r.err)
			}
			if _, err := readFile(dir, "allowed.txt"); err != nil {
				t.Errorf("the lead's allowed command did not run: %v", err)
			}
			if _, err := readFile(dir, "rejected.txt"); err == nil {
				t.Errorf("the sub-agent's rejected command ran")
			}
			if len(r.asked) != 2 {
				t.Fatalf("%d approvals asked, want 2", len(r.asked))
			}
			byID, _ := calls(r.updates)
			for _, a := range r.asked {
				title := *a.ToolCall.Title
				agentName, _ := a.ToolCall.Meta["agent"].(string)
				if !strings.HasPrefix(title, agentName+" ") || !strings.Contains(title, "touch") {
					t.Errorf("approval titled %q should name its agent %q and the command", title, agentName)
				}
				kinds := map[sdk.PermissionOptionKind]bool{}
				for _, o := range a.Options {
					kinds[o.Kind] = true
				}
				if len(kinds) != 4 {
					t.Errorf("options %v, want allow_once, allow_always, reject_once, reject_always", a.Options)
				}
				c, ok := byID[a.ToolCall.ToolCallId]
				if !ok {
					t.Errorf("approval for tool call %s the client never saw", a.ToolCall.ToolCallId)
					continue
				}
				if agentName == "lead" {
					continue
				}
				if !strings.Contains(c.title, "Make another file") {
					t.Errorf("the sub-agent's approval is on tool call %q, want its own task call", c.title)
				}
				if all := strings.Join(c.content, "\n"); !strings.Contains(all, "bash") || !strings.Contains(all, "it was refused") {
					t.Errorf("the sub-agent's tool call showed %q, want its current tool (bash), then its result", all)
				}
			}
		})
	}
}

func TestACPCancelMidFanOutEndsEverySubagentToolCallAndLeavesNoProcess(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, `
rules:
  - name: lead-after
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "after"}
  - name: lead-fanout
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "Sleep one", prompt: "S1", subagent_type: general-purpose}}
        - {name: task, input: {description: "Sleep two", prompt: "S2", subagent_type: general-purpose}}
        - {name: task, input: {description: "Sleep three", prompt: "S3", subagent_type: general-purpose}}
  - name: sub-after
    match: {system_contains: "You are a sub-agent", has_tool_results: true}
    respond: {text: "slept"}
  - name: sub
    match: {system_contains: "You are a sub-agent"}
    respond:
      tool_calls:
        - {name: bash, input: {command: "sleep 37.5", description: "sleep"}}
`)
			f := acpFlow{Cwd: t.TempDir(), Prompt: "sleep in parallel", CancelAt: 3, beforeCancel: func(pid int) {
				testkit.WaitFor(t, 20*time.Second, "three sleeping sub-agents", func() bool { return len(processes(t, pid, "sleep 37.5")) == 3 })
			}}
			r := d.run(t, srv, t.TempDir(), f, "--permission-mode", "bypassPermissions")
			if r.err != "" || r.stop != sdk.StopReasonCancelled {
				t.Fatalf("cancelled prompt answered stop %q, error %q; want cancelled", r.stop, r.err)
			}
			byID, _ := calls(r.updates)
			for _, desc := range []string{"Sleep one", "Sleep two", "Sleep three"} {
				if c := callTitled(t, byID, desc); c != nil && c.status() != sdk.ToolCallStatusFailed {
					t.Errorf("%s ended %v after the cancel, want failed", desc, c.statuses)
				}
			}
			noLeftover(t, "sleep 37.5")
		})
	}
}

func TestACPLoadSessionReplaysTheEarlierSession(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, `rules: [{name: first, respond: {text: "first answer"}}]`)
			r := d.run(t, srv, t.TempDir(), acpFlow{Cwd: t.TempDir(), Prompt: "FIRST question", Load: true})
			var user strings.Builder
			for _, u := range r.replayed {
				if m := u.n.Update.UserMessageChunk; m != nil && m.Content.Text != nil {
					user.WriteString(m.Content.Text.Text)
				}
			}
			if !strings.Contains(user.String(), "FIRST question") || !strings.Contains(agentText(r.replayed), "first answer") {
				t.Fatalf("session/load replayed user %q and agent %q, want the first exchange", user.String(), agentText(r.replayed))
			}
		})
	}
}

func TestACPLoadedSessionContinuesWithItsHistoryAndAnUnknownOneIsAnError(t *testing.T) {
	srv := server(t, `
rules:
  - name: second
    match: {last_user_contains: "SECOND"}
    respond: {text: "second answer"}
  - name: first
    respond: {text: "first answer"}
`)
	home, dir := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first := startACP(t, srv, home, &acpClient{})
	_, s := first.session(t, ctx, dir, sdk.ClientCapabilities{})
	if _, err := first.prompt(ctx, s.SessionId, "FIRST question"); err != nil {
		t.Fatalf("first prompt: %v", err)
	}
	first.stop(t)
	second := startACP(t, srv, home, &acpClient{})
	if _, err := second.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := second.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if _, err := second.prompt(ctx, s.SessionId, "SECOND question"); err != nil {
		t.Fatalf("prompt after load: %v", err)
	}
	last := loopback.ByRule(srv.Log(), "second")
	if len(last) != 1 {
		t.Fatalf("second requests: %d", len(last))
	}
	var history []string
	for _, m := range last[0].Messages {
		history = append(history, m.Text)
	}
	if h := strings.Join(history, "|"); !strings.Contains(h, "FIRST question") || !strings.Contains(h, "first answer") {
		t.Errorf("the loaded session's next request lacks its history: %q", h)
	}
	_, err := second.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "atomic-nope", Cwd: dir, McpServers: []sdk.McpServer{}})
	if err == nil || !strings.Contains(err.Error(), "atomic-nope") {
		t.Errorf("loading an unknown session: %v, want an error naming it", err)
	}
}

func TestACPFileToolsGoThroughTheClientsFSMethodsAndEditsShowADiff(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, `
rules:
  - name: lead-final
    match: {tool_result_contains: "Edited"}
    respond: {text: "edited"}
  - name: lead-edit
    match: {tool_result_contains: "unsaved draft"}
    respond:
      tool_calls:
        - {name: edit, input: {file_path: "notes.txt", old_string: "unsaved draft", new_string: "final text"}}
  - name: lead-read
    respond:
      tool_calls:
        - {name: read, input: {file_path: "notes.txt"}}
`)
			dir := t.TempDir()
			path := filepath.Join(dir, "notes.txt")
			if err := os.WriteFile(path, []byte("saved on disk\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := d.run(t, srv, t.TempDir(), acpFlow{Cwd: dir, Prompt: "fix the notes", FS: map[string]string{path: "unsaved draft\n"}},
				"--permission-mode", "acceptEdits")
			if r.err != "" {
				t.Fatalf("session/prompt: %s", r.err)
			}
			if read := loopback.ByRule(srv.Log(), "lead-edit"); len(read) != 1 {
				t.Fatalf("the read tool did not see the editor's buffer: %d requests after it", len(read))
			}
			if r.writes[path] != "final text\n" {
				t.Errorf("fs/write_text_file got %q, want the edited buffer", r.writes[path])
			}
			if disk, _ := os.ReadFile(path); string(disk) != "saved on disk\n" {
				t.Errorf("the disk file changed to %q: the edit should go through the editor", disk)
			}
			byID, _ := calls(r.updates)
			var edit *call
			for _, c := range byID {
				if c.kind == sdk.ToolKindEdit {
					edit = c
				}
			}
			if edit == nil {
				t.Fatalf("no edit tool call: %v", byID)
			}
			if len(edit.locs) != 1 || edit.locs[0] != path {
				t.Errorf("edit locations %v, want %s", edit.locs, path)
			}
			if len(edit.diffs) != 1 || edit.diffs[0].Path != path || edit.diffs[0].NewText != "final text\n" ||
				edit.diffs[0].OldText == nil || *edit.diffs[0].OldText != "unsaved draft\n" {
				t.Errorf("edit diff %+v, want unsaved draft -> final text on %s", edit.diffs, path)
			}
		})
	}
}

func TestACPClientsMCPServersGiveTheLeadTheirTools(t *testing.T) {
	everything := testkit.MCPEverything(t)
	srv := server(t, `
rules:
  - {name: final, match: {tool_result_contains: "Echo: from the editor"}, respond: {text: "echoed"}}
  - {name: call, match: {tools_include: [mcp__everything__echo]}, respond: {tool_calls: [{name: mcp__everything__echo, input: {message: from the editor}}]}}
  - {name: no-tool, respond: {text: "the editor's MCP server was not offered"}}
`)
	client := &acpClient{answer: allowLead}
	a := startACP(t, srv, t.TempDir(), client, "--permission-mode", "bypassPermissions")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	init, err := a.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if !init.AgentCapabilities.McpCapabilities.Http || !init.AgentCapabilities.McpCapabilities.Sse {
		t.Errorf("mcpCapabilities %+v, want http and sse", init.AgentCapabilities.McpCapabilities)
	}
	s, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "everything", Command: everything, Args: []string{"stdio"}, Env: []sdk.EnvVariable{}}},
	}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if _, err := a.prompt(ctx, s.SessionId, "echo through MCP"); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if got := agentText(client.seen()); got != "echoed" {
		t.Errorf("agent text %q, want the answer after the MCP tool echoed", got)
	}
}
