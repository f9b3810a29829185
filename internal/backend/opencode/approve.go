package opencode

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Ask is a permission.asked the server waits on.
type Ask struct {
	// ID answers it: POST /permission/{ID}/reply.
	ID string
	// session is the OpenCode session that asks.
	session string
	req     permission.Request
	// base names the agent that asks and its tool call.
	base event.Event
}

// Asked reads a permission.asked event as the request of the agent whose
// session asks (the lead when the session is unknown); ok is false for any
// other event.
func (t *Translator) Asked(e Event) (Ask, bool) {
	if e.Type != "permission.asked" {
		return Ask{}, false
	}
	var p props
	if err := json.Unmarshal(e.Properties, &p); err != nil || p.ID == "" {
		return Ask{}, false
	}
	call := ""
	if p.Tool != nil {
		call = p.Tool.CallID
	}
	t.mu.Lock()
	a := t.of(p.SessionID)
	if a == nil {
		a = t.lead
	}
	var base event.Event
	if a == nil {
		base = event.Event{SessionID: t.cfg.SessionID, AgentID: t.cfg.AgentID, ToolCallID: call}
	} else {
		base = event.Event{SessionID: a.SessionID, AgentID: a.ID, ParentAgentID: a.Parent, ToolCallID: call}
	}
	t.mu.Unlock()
	var meta struct {
		Command  string `json:"command"`
		FilePath string `json:"filepath"`
		URL      string `json:"url"`
	}
	_ = json.Unmarshal(p.Metadata, &meta)
	req := permission.Request{ID: "opencode-" + p.ID, AgentID: base.AgentID, AgentName: base.AgentID, Backend: backend.OpenCode, Tool: p.Permission,
		Subject: strings.Join(p.Patterns, " ")}
	switch p.Permission {
	case "bash":
		req.Kind, req.Subject = tools.Exec, cmp.Or(meta.Command, req.Subject)
		req.Input, _ = json.Marshal(map[string]string{"command": req.Subject})
	case "edit", "write", "patch":
		req.Tool, req.Kind = "edit", tools.Edit
		req.Subject = cmp.Or(meta.FilePath, req.Subject)
		req.Input, _ = json.Marshal(map[string]string{"path": req.Subject})
	default:
		req.Kind = tools.Exec // webfetch, external_directory, …: nothing the gate allows unasked
		req.Subject = cmp.Or(meta.URL, req.Subject)
		req.Input = p.Metadata
	}
	return Ask{ID: p.ID, session: p.SessionID, req: req, base: base}, true
}

// Reply is OpenCode's answer to an Ask: "once" or "reject".
func Reply(d permission.Decision) string {
	if d.Allow {
		return "once"
	}
	return "reject"
}

// decide puts ask through the gate, until ctx withdraws it, and posts the
// answer. A withdrawn ask is still rejected, in case OpenCode waits on it;
// an error then is no news (the aborted session may have dropped it).
func (s *Session) decide(ctx context.Context, ask Ask) error {
	d := backend.Decide(ctx, s.cfg.Gate, s.cfg.Sink, ask.base, ask.req)
	body := map[string]string{"reply": Reply(d)}
	if !d.Allow && d.Reason != "" {
		body["message"] = d.Reason
	}
	if err := s.srv.post(s.ctx, "/permission/"+ask.ID+"/reply", body, nil); err != nil && ctx.Err() == nil {
		return fmt.Errorf("opencode: answer permission %s: %w", ask.ID, err)
	}
	return nil
}
