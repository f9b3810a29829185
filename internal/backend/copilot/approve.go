package copilot

import (
	"context"
	"encoding/json"

	sdk "github.com/github/copilot-sdk/go"
	"github.com/github/copilot-sdk/go/rpc"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Decide answers a permission.requested event: the request goes through
// backend.Decide as the agent whose agentId the event carries (a
// sub-agent's approval is its own), and the answer is the CLI's decision:
// approve-once, or reject with the gate's reason (the flag that would
// allow it, headless) as feedback the model sees. It may block on a human.
func (t *Translator) Decide(ctx context.Context, ev sdk.SessionEvent, d *sdk.PermissionRequestedData) rpc.PermissionDecision {
	req := request(d)
	base := t.asker(ev, req.ID)
	req.AgentID, req.AgentName, req.Backend = base.AgentID, base.AgentID, backend.Copilot
	req.ID = "copilot-" + d.RequestID
	if dec := backend.Decide(ctx, t.cfg.Gate, t.cfg.Sink, base, req); dec.Allow {
		return &rpc.PermissionDecisionApproveOnce{}
	} else if dec.Reason != "" {
		return &rpc.PermissionDecisionReject{Feedback: &dec.Reason}
	}
	return &rpc.PermissionDecisionReject{}
}

// AskerID is the id of the agent that asks in a permission.requested event.
func (t *Translator) AskerID(ev sdk.SessionEvent) string { return t.asker(ev, "").AgentID }

// asker is the base event of an approval: the agent that asks (the lead
// when its agentId is not known), with the tool call that asks.
func (t *Translator) asker(ev sdk.SessionEvent, call string) event.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.lead
	if ev.AgentID != nil {
		if c := t.kids.Of(*ev.AgentID); c != nil && c.X.copilotID == *ev.AgentID {
			a = c
		}
	}
	return event.Event{SessionID: a.SessionID, AgentID: a.ID, ParentAgentID: a.Parent, ToolCallID: call}
}

// request is the gate's view of what the CLI asks: the tool in Atomic's
// terms (bash, write, read, mcp__server__tool…), its kind and subject, so
// the rules of --allowed-tools match as for native calls. ID holds the
// asking tool call until Decide sets the request's own.
func request(d *sdk.PermissionRequestedData) permission.Request {
	var req permission.Request
	var input any
	switch p := d.PermissionRequest.(type) {
	case *rpc.PermissionRequestShell:
		req.Tool, req.Kind, req.Subject, req.ID = "bash", tools.Exec, p.FullCommandText, deref(p.ToolCallID)
		input = map[string]string{"command": p.FullCommandText, "description": p.Intention}
	case *rpc.PermissionRequestWrite:
		req.Tool, req.Kind, req.Subject, req.ID, req.Diff = "write", tools.Edit, p.FileName, deref(p.ToolCallID), p.Diff
		input = map[string]string{"file_path": p.FileName}
	case *rpc.PermissionRequestRead:
		req.Tool, req.Kind, req.Subject, req.ID = "read", tools.ReadOnly, p.Path, deref(p.ToolCallID)
		input = map[string]string{"file_path": p.Path}
	case *rpc.PermissionRequestURL:
		req.Tool, req.Kind, req.Subject, req.ID = "web_fetch", tools.Exec, p.URL, deref(p.ToolCallID)
		input = map[string]string{"url": p.URL}
	case *rpc.PermissionRequestMCP:
		req.Tool, req.Kind, req.ID = "mcp__"+p.ServerName+"__"+p.ToolName, tools.Exec, deref(p.ToolCallID)
		if p.ReadOnly {
			req.Kind = tools.ReadOnly
		}
		input = p.Args
	case *rpc.PermissionRequestCustomTool:
		req.Tool, req.Kind, req.ID = p.ToolName, tools.Exec, deref(p.ToolCallID)
		input = p.Args
	default: // memory, hooks, extensions: asked as what they are
		req.Tool, req.Kind = "copilot:"+string(d.PermissionRequest.Kind()), tools.Exec
		input = d.PermissionRequest
	}
	req.Input, _ = json.Marshal(input)
	return req
}
