package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
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

func TestACPBackgroundSubagentStaysInProgressAfterTheTurnAndCompletesWithItsOwnUpdate(t *testing.T) {
	srv := server(t, `
rules:
  - name: lead-notified
    match: {tools_include: [task], last_user_contains: "background result 42"}
    respond: {text: "The background task said 42."}
  - name: lead-ack
    match: {tools_include: [task], has_tool_results: true}
    respond: {text: "Spawned it; carrying on."}
  - name: lead-spawn
    match: {tools_include: [task]}
    respond:
      tool_calls:
        - {name: task, input: {description: "Slow analysis", prompt: "BG-TASK analyse slowly", mode: background}}
  - name: sub
    match: {tools_exclude: [task]}
    respond: {text: "background result 42", delay_ms: 1500}
`)
	client := &acpClient{}
	a := startACP(t, srv, t.TempDir(), client)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, s := a.session(t, ctx, t.TempDir(), sdk.ClientCapabilities{})
	resp, err := a.prompt(ctx, s.SessionId, "start the analysis")
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v, %v", resp, err)
	}
	returned := time.Now()
	byID, _ := calls(client.seen())
	var id sdk.ToolCallId
	for k, c := range byID {
		if strings.Contains(c.title, "Slow analysis") {
			id = k
		}
	}
	if id == "" {
		t.Fatalf("no tool call for the background sub-agent: %v", byID)
	}
	if st := byID[id].status(); st != sdk.ToolCallStatusInProgress {
		t.Fatalf("after the turn returned the background sub-agent is %q, want in_progress (its spawn acknowledgement is not its end)", st)
	}
	testkit.WaitFor(t, 20*time.Second, "the background sub-agent's completion", func() bool {
		m, _ := calls(client.seen())
		return m[id].status() != sdk.ToolCallStatusInProgress
	})
	byID, _ = calls(client.seen())
	c := byID[id]
	if c.status() != sdk.ToolCallStatusCompleted {
		t.Fatalf("background sub-agent ended %v, want completed", c.statuses)
	}
	if !c.doneAt.After(returned) {
		t.Errorf("completed at %s, not after the turn returned at %s", c.doneAt, returned)
	}
	if end := loopback.ByRule(srv.Log(), "sub")[0].End; c.doneAt.Before(end) {
		t.Errorf("completed before its model answered")
	}
	if all := strings.Join(c.content, "\n"); !strings.Contains(all, "background result 42") {
		t.Errorf("content %q lacks the result", all)
	}
	testkit.WaitFor(t, 20*time.Second, "the woken lead's answer", func() bool {
		return strings.Contains(agentText(client.seen()), "The background task said 42.")
	})
}

func TestACPApprovalsOfTheLeadAndASubagentGoToTheClientLabelledAndAreObeyed(t *testing.T) {
	srv := server(t, `
rules:
  - name: lead-final
    match: {tools_include: [task], has_tool_results: true}
    respond: {text: "done"}
  - name: lead-start
    match: {tools_include: [task]}
    respond:
      tool_calls:
        - {name: bash, input: {command: "touch allowed.txt", description: "make a file"}}
        - {name: task, input: {description: "Make another file", prompt: "SUB-MAKE", subagent_type: general-purpose}}
  - name: sub-after
    match: {tools_exclude: [task], has_tool_results: true}
    respond: {text: "it was refused"}
  - name: sub-start
    match: {tools_exclude: [task]}
    respond:
      tool_calls:
        - {name: bash, input: {command: "touch rejected.txt", description: "make a file"}}
`)
	client := &acpClient{answer: func(r sdk.RequestPermissionRequest) string {
		if r.ToolCall.Meta["agent"] == "lead" {
			return "allow_once"
		}
		return "reject_once"
	}}
	a := startACP(t, srv, t.TempDir(), client)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	_, s := a.session(t, ctx, dir, sdk.ClientCapabilities{})
	if _, err := a.prompt(ctx, s.SessionId, "make the files"); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if _, err := readFile(dir, "allowed.txt"); err != nil {
		t.Errorf("the lead's allowed command did not run: %v", err)
	}
	if _, err := readFile(dir, "rejected.txt"); err == nil {
		t.Errorf("the sub-agent's rejected command ran")
	}
	client.mu.Lock()
	asked := append([]sdk.RequestPermissionRequest(nil), client.asked...)
	client.mu.Unlock()
	if len(asked) != 2 {
		t.Fatalf("%d approvals asked, want 2", len(asked))
	}
	byID, _ := calls(client.seen())
	for _, r := range asked {
		title := *r.ToolCall.Title
		agentName, _ := r.ToolCall.Meta["agent"].(string)
		if !strings.HasPrefix(title, agentName+" ") || !strings.Contains(title, "touch") {
			t.Errorf("approval titled %q should name its agent %q and the command", title, agentName)
		}
		kinds := map[sdk.PermissionOptionKind]bool{}
		for _, o := range r.Options {
			kinds[o.Kind] = true
		}
		if len(kinds) != 4 {
			t.Errorf("options %v, want allow_once, allow_always, reject_once, reject_always", r.Options)
		}
		c, ok := byID[r.ToolCall.ToolCallId]
		if !ok {
			t.Errorf("approval for tool call %s the client never saw", r.ToolCall.ToolCallId)
			continue
		}
		if agentName != "lead" && !strings.Contains(c.title, "Make another file") {
			t.Errorf("the sub-agent's approval is on tool call %q, want its own task call", c.title)
		}
	}
}

func TestACPCancelMidFanOutEndsEverySubagentToolCallAndLeavesNoProcess(t *testing.T) {
	srv := server(t, `
rules:
  - name: lead-after
    match: {tools_include: [task], has_tool_results: true}
    respond: {text: "after"}
  - name: lead-fanout
    match: {tools_include: [task]}
    respond:
      tool_calls:
        - {name: task, input: {description: "Sleep one", prompt: "S1", subagent_type: general-purpose}}
        - {name: task, input: {description: "Sleep two", prompt: "S2", subagent_type: general-purpose}}
        - {name: task, input: {description: "Sleep three", prompt: "S3", subagent_type: general-purpose}}
  - name: sub-after
    match: {tools_exclude: [task], has_tool_results: true}
    respond: {text: "slept"}
  - name: sub
    match: {tools_exclude: [task]}
    respond:
      tool_calls:
        - {name: bash, input: {command: "sleep 37", description: "sleep"}}
`)
	client := &acpClient{}
	a := startACP(t, srv, t.TempDir(), client, "--permission-mode", "bypassPermissions")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, s := a.session(t, ctx, t.TempDir(), sdk.ClientCapabilities{})
	type answer struct {
		resp sdk.PromptResponse
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		r, err := a.prompt(ctx, s.SessionId, "sleep in parallel")
		got <- answer{r, err}
	}()
	testkit.WaitFor(t, 20*time.Second, "three sleeping sub-agents", func() bool {
		_, most := calls(client.seen())
		return most == 3 && len(sleepers(t, a.cmd.Process.Pid)) == 3
	})
	if err := a.conn.Cancel(ctx, sdk.CancelNotification{SessionId: s.SessionId}); err != nil {
		t.Fatalf("session/cancel: %v", err)
	}
	var r answer
	select {
	case r = <-got:
	case <-time.After(15 * time.Second):
		t.Fatal("the cancelled prompt did not answer within 15s")
	}
	if r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("cancelled prompt answered %+v, %v; want stop reason cancelled", r.resp, r.err)
	}
	byID, _ := calls(client.seen())
	n := 0
	for id, c := range byID {
		if !strings.Contains(c.title, "Sleep") {
			continue
		}
		n++
		if st := c.status(); st != sdk.ToolCallStatusFailed {
			t.Errorf("%s (%s) ended %v after the cancel, want failed", id, c.title, c.statuses)
		}
	}
	if n != 3 {
		t.Errorf("%d sub-agent tool calls, want 3", n)
	}
	testkit.WaitFor(t, 10*time.Second, "the sub-agents' commands to end", func() bool {
		return len(sleepers(t, a.cmd.Process.Pid)) == 0
	})
}

// sleepers lists the processes under pid (by /proc) running sleep 37.
func sleepers(t *testing.T, pid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	parent := map[int]int{}
	cmdline := map[int]string{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces; split after ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 {
			continue
		}
		parent[p], _ = strconv.Atoi(f[1])
		cl, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cmdline[p] = strings.ReplaceAll(string(cl), "\x00", " ")
	}
	var out []int
	for p, cl := range cmdline {
		if !strings.HasPrefix(cl, "sleep 37") {
			continue
		}
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func TestACPLoadSessionReplaysTheEarlierSessionAndContinuesIt(t *testing.T) {
	srv := server(t, `
rules:
  - name: second
    match: {last_user_contains: "SECOND"}
    respond: {text: "second answer"}
  - name: first
    respond: {text: "first answer"}
`)
	home := t.TempDir()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first := startACP(t, srv, home, &acpClient{})
	_, s := first.session(t, ctx, dir, sdk.ClientCapabilities{})
	if _, err := first.prompt(ctx, s.SessionId, "FIRST question"); err != nil {
		t.Fatalf("first prompt: %v", err)
	}
	first.stop(t)

	client := &acpClient{}
	second := startACP(t, srv, home, client)
	init, err := second.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if !init.AgentCapabilities.LoadSession {
		t.Fatalf("initialize: loadSession false though a session is saved")
	}
	if _, err := second.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	var user, agent strings.Builder
	for _, u := range client.seen() {
		if m := u.n.Update.UserMessageChunk; m != nil && m.Content.Text != nil {
			user.WriteString(m.Content.Text.Text)
		}
	}
	agent.WriteString(agentText(client.seen()))
	if !strings.Contains(user.String(), "FIRST question") || !strings.Contains(agent.String(), "first answer") {
		t.Fatalf("session/load replayed user %q and agent %q, want the first exchange", user.String(), agent.String())
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
	if _, err := second.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "atomic-nope", Cwd: dir, McpServers: []sdk.McpServer{}}); err == nil || !strings.Contains(err.Error(), "atomic-nope") {
		t.Errorf("loading an unknown session: %v, want an error naming it", err)
	}
}

func TestACPFileToolsGoThroughTheClientsFSMethodsAndEditsShowADiff(t *testing.T) {
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
	client := &acpClient{files: map[string]string{path: "unsaved draft\n"}}
	a := startACP(t, srv, t.TempDir(), client, "--permission-mode", "acceptEdits")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, s := a.session(t, ctx, dir, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	if _, err := a.prompt(ctx, s.SessionId, "fix the notes"); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	read := loopback.ByRule(srv.Log(), "lead-edit")
	if len(read) != 1 || len(read[0].LastToolResults()) != 1 || !strings.Contains(read[0].LastToolResults()[0].Content, "unsaved draft") {
		t.Fatalf("the read tool did not see the editor's buffer: %+v", read)
	}
	client.mu.Lock()
	written := client.writes[path]
	client.mu.Unlock()
	if written != "final text\n" {
		t.Errorf("fs/write_text_file got %q, want the edited buffer", written)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "saved on disk\n" {
		t.Errorf("the disk file changed to %q: the edit should go through the editor", disk)
	}
	byID, _ := calls(client.seen())
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
}
