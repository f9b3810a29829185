package claudecode

import (
	"context"
	"encoding/json"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
)

// decide puts a can_use_tool request through our permission gate (as the
// agent that asks: the sub-agent the CLI names, else the lead) and returns
// the control_response that answers it: allow with the input unchanged, or
// deny with the gate's reason, which the CLI shows its model.
func (t *translator) decide(ctx context.Context, gate *permission.Gate, ap *approval) []byte {
	base := event.Event{SessionID: t.cfg.SessionID, AgentID: t.cfg.AgentID, ParentAgentID: t.cfg.ParentID, ToolCallID: ap.req.ToolUseID}
	if a := ap.agent; a != nil {
		base.SessionID, base.AgentID, base.ParentAgentID = a.SessionID, a.ID, a.Parent
	}
	req := permission.Request{
		ID: ap.requestID, AgentID: base.AgentID, AgentName: base.AgentID, Backend: Backend,
		Tool: ourToolName(ap.req.ToolName), Kind: toolKind(ap.req.ToolName),
		Subject: subject(ap.req.ToolName, ap.req.Input), Input: ap.req.Input,
	}
	d := backend.Decide(ctx, gate, t.cfg.Sink, base, req)
	return controlResponse(ap, d)
}

func controlResponse(ap *approval, d permission.Decision) []byte {
	type verdict struct {
		Behavior     string          `json:"behavior"`
		UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
		Message      string          `json:"message,omitempty"`
		ToolUseID    string          `json:"toolUseID,omitempty"`
	}
	v := verdict{Behavior: "allow", UpdatedInput: ap.req.Input, ToolUseID: ap.req.ToolUseID}
	if len(v.UpdatedInput) == 0 {
		v.UpdatedInput = json.RawMessage(`{}`)
	}
	if !d.Allow {
		v = verdict{Behavior: "deny", Message: d.Reason, ToolUseID: ap.req.ToolUseID}
		if v.Message == "" {
			v.Message = "permission denied"
		}
	}
	b, _ := json.Marshal(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype": "success", "request_id": ap.requestID, "response": v,
		},
	})
	return b
}
