package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// shellUpdates shows a background shell as a tool call of its own (kind
// execute), attached under the tool call of whoever started it (_meta
// parentToolCallId: the lead's bash call, or a sub-agent's task call), its
// content the last line the shell wrote, ended with its exit status. old
// is the record the client was last sent, if found.
func (t *translator) shellUpdates(old lifecycle.Record, found bool, r lifecycle.Record) []sdk.SessionUpdate {
	id := shellCallID(r)
	if !found || !t.tasks[string(id)] {
		t.tasks[string(id)] = true
		tc := sdk.StartToolCall(id, "$ "+r.Command, sdk.WithStartKind(sdk.ToolKindExecute),
			sdk.WithStartStatus(agentStatus(r.Status)), sdk.WithStartRawInput(map[string]any{"command": r.Command, "run_in_background": true}),
			sdk.WithStartContent(shellContent(r)))
		tc.ToolCall.Meta = map[string]any{"atomic": t.shellMeta(r)}
		if !r.Status.Terminal() {
			return []sdk.SessionUpdate{tc}
		}
		return []sdk.SessionUpdate{tc, shellEnd(r)} // a replayed shell that had ended
	}
	switch {
	case r.Status.Terminal() && !old.Status.Terminal():
		return []sdk.SessionUpdate{shellEnd(r)}
	case r.Status == old.Status && r.LastLine != old.LastLine:
		return []sdk.SessionUpdate{sdk.UpdateToolCall(id, sdk.WithUpdateContent(shellContent(r)))}
	}
	return nil
}

// shellCallID is a shell's own tool call: the bash call that started it,
// and its id (unique in the session, where shell ids alone restart with
// each run).
func shellCallID(r lifecycle.Record) sdk.ToolCallId {
	return sdk.ToolCallId(r.ToolCallID + "/" + r.ID)
}

// shellMeta names what the shell is attached under: the lead's bash call
// that started it, or the tool call showing the sub-agent that did.
func (t *translator) shellMeta(r lifecycle.Record) map[string]any {
	m := map[string]any{"shellId": r.ID, "agentId": r.ParentID}
	switch parent, ok := t.recs.Get(r.ParentID); {
	case r.ParentID == event.LeadID:
		m["parentToolCallId"] = r.ToolCallID
	case ok:
		m["parentToolCallId"] = string(agentCallID(parent))
	}
	return m
}

// shellEnd ends a shell's tool call with its exit status: completed on
// exit 0, failed on another status or a stop.
func shellEnd(r lifecycle.Record) sdk.SessionUpdate {
	out := map[string]any{"status": string(r.Status), "exit_code": r.ExitCode}
	if r.LastLine != "" {
		out["last_line"] = r.LastLine
	}
	if r.Error != "" {
		out["error"] = r.Error
	}
	return sdk.UpdateToolCall(shellCallID(r), sdk.WithUpdateStatus(agentStatus(r.Status)),
		sdk.WithUpdateContent(shellContent(r)), sdk.WithUpdateRawOutput(out))
}

// shellContent is the line a shell's row shows under it: its last output
// line while it runs, then its exit status and last line.
func shellContent(r lifecycle.Record) []sdk.ToolCallContent {
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(lifecycle.ShellLine(r)))}
}
