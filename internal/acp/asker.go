package acp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// The permission options offered for every approval, by id.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// asker puts the approvals of the lead and of every sub-agent to the
// client as session/request_permission, labelled with the agent that asks.
type asker struct {
	conn notifier
	s    *session // set by start, before the run serves
}

// Ask implements permission.Asker. A cancelled turn (ctx) withdraws the
// request; the SDK tells the client so.
func (k *asker) Ask(ctx context.Context, req permission.Request) (permission.Answer, error) {
	k.s.mu.Lock()
	call, ok := k.s.perms[req.ID]
	delete(k.s.perms, req.ID)
	k.s.mu.Unlock()
	if !ok {
		call = sdk.ToolCallId(req.ID)
	}
	k.s.flush(ctx) // the client knows the tool call before it is asked about it
	// A nested agent by its place in the tree.
	agent := req.Who()
	if req.Backend != "" {
		agent += " (" + req.Backend + ")"
	}
	title := fmt.Sprintf("%s wants to run %s", agent, req.Tool)
	if req.Subject != "" {
		title += ": " + req.Subject
	}
	kind := toolKind(req.Tool)
	if req.Kind == tools.ReadOnly && kind == sdk.ToolKindOther {
		kind = sdk.ToolKindRead
	}
	update := sdk.ToolCallUpdate{ToolCallId: call, Title: &title, Kind: &kind,
		Meta: map[string]any{"agent": req.AgentName, "agentId": req.AgentID, "path": req.Path, "tool": req.Tool}}
	if len(req.Input) > 0 {
		update.RawInput = req.Input
	}
	always := "Always allow " + req.Tool
	if len(req.SessionRules) > 0 {
		always = "Always allow " + req.SessionRules[0]
	}
	resp, err := k.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: k.s.id, ToolCall: update,
		Options: []sdk.PermissionOption{
			{OptionId: optAllowOnce, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: optAllowAlways, Name: always, Kind: sdk.PermissionOptionKindAllowAlways},
			{OptionId: optRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
			{OptionId: optRejectAlways, Name: "Always reject", Kind: sdk.PermissionOptionKindRejectAlways},
		},
	})
	if err != nil {
		return permission.Deny, fmt.Errorf("asking the client: %w", err)
	}
	if ctx.Err() != nil {
		return permission.Deny, ctx.Err()
	}
	switch {
	case resp.Outcome.Cancelled != nil:
		return permission.Deny, errors.New("the client cancelled the request")
	case resp.Outcome.Selected == nil:
		return permission.Deny, errors.New("the client answered without an outcome")
	}
	switch id := resp.Outcome.Selected.OptionId; id {
	case optAllowOnce:
		return permission.AllowOnce, nil
	case optAllowAlways:
		return permission.AllowSession, nil
	case optRejectOnce:
		return permission.Deny, nil
	case optRejectAlways:
		return permission.DenySession, nil
	default:
		return permission.Deny, fmt.Errorf("the client chose unknown option %q", id)
	}
}
