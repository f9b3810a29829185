package codex

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lazy"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// errNotSupported answers a server request Atomic does not handle, so the
// CLI never waits on it.
const errNotSupported = -32601

// Answer answers one server→client request: an approval goes through
// backend.Decide as the agent whose thread asks (a sub-agent's approval is
// its own), anything else gets a JSON-RPC error. It may block on a human;
// the Session calls it off the reading goroutine.
func (t *Translator) Answer(ctx context.Context, m inbound) error {
	p := &m.Params
	thread := firstNonEmpty(p.ThreadID, p.ConversationID)
	call := firstNonEmpty(p.ItemID, p.CallID)
	req := permission.Request{ID: "codex-" + strings.Trim(string(m.ID), `"`)}
	var allow, deny any
	switch m.Method {
	case "item/commandExecution/requestApproval", "execCommandApproval":
		req.Tool, req.Kind, req.Subject = "bash", tools.Exec, commandText(p.Command)
		req.Input, _ = json.Marshal(map[string]string{"command": req.Subject})
		allow, deny = map[string]string{"decision": "accept"}, map[string]string{"decision": "decline"}
		if m.Method == "execCommandApproval" {
			allow, deny = map[string]string{"decision": "approved"}, map[string]string{"decision": "denied"}
		}
	case "item/fileChange/requestApproval", "applyPatchApproval":
		req.Tool, req.Kind = "edit", tools.Edit
		paths := t.changedFiles(call)
		for f := range p.FileChanges {
			paths = append(paths, f)
		}
		if len(paths) == 0 && p.GrantRoot != nil {
			paths = []string{*p.GrantRoot}
		}
		req.Subject = strings.Join(paths, " ")
		req.Input, _ = json.Marshal(map[string]any{"paths": paths, "reason": deref(p.Reason)})
		allow, deny = map[string]string{"decision": "accept"}, map[string]string{"decision": "decline"}
		if m.Method == "applyPatchApproval" {
			allow, deny = map[string]string{"decision": "approved"}, map[string]string{"decision": "denied"}
		}
	case "item/permissions/requestApproval":
		req.Tool, req.Kind, req.Subject, req.Input = "permissions", tools.Exec, deref(p.Reason), p.Permissions
		allow = map[string]any{"permissions": p.Permissions, "scope": "turn"}
		deny = map[string]any{"permissions": map[string]any{}, "scope": "turn"}
	default:
		return t.reply(m.ID, nil, &rpcError{Code: errNotSupported, Message: "atomic does not support " + m.Method})
	}
	base := t.asker(thread, call)
	req.AgentID, req.AgentName, req.Backend = base.AgentID, base.AgentID, backend.Codex
	if d := backend.Decide(ctx, t.cfg.Gate, t.cfg.Sink, base, req); d.Allow {
		return t.reply(m.ID, allow, nil)
	}
	return t.reply(m.ID, deny, nil)
}

// asker is the base event of an approval: the agent whose thread asks (the
// lead when the thread is unknown), with the item as the tool call.
func (t *Translator) asker(thread, call string) event.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.of(thread)
	if a == nil {
		a = t.lead
	}
	if a == nil {
		return event.Event{SessionID: t.cfg.SessionID, AgentID: t.cfg.AgentID, ToolCallID: call}
	}
	return event.Event{SessionID: a.SessionID, AgentID: a.ID, ParentAgentID: a.Parent, ToolCallID: call}
}

func (t *Translator) changedFiles(call string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.files[call]...)
}

// commandText is an approval's command as the gate reads it: a string
// (v2) or an argv (legacy), the shell wrapper Codex adds removed.
func commandText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return unwrapShell(s)
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		if len(argv) == 3 && shellName.Get().MatchString(argv[0]) && strings.HasSuffix(argv[1], "c") {
			return argv[2]
		}
		return strings.Join(argv, " ")
	}
	return ""
}

var (
	shellName    = lazy.Regexp{Expr: `^(?:\S*/)?(?:ba|z)?sh$`}
	shellWrapper = lazy.Regexp{Expr: `^(?:\S*/)?(?:ba|z)?sh -l?c '(.*)'$`}
)

// unwrapShell turns Codex's `/bin/bash -lc 'cmd'` into `cmd`, so rules
// such as bash(touch:*) match what the model ran.
func unwrapShell(cmd string) string {
	if m := shellWrapper.Get().FindStringSubmatch(cmd); m != nil && !strings.Contains(strings.ReplaceAll(m[1], `'\''`, ""), "'") {
		return strings.ReplaceAll(m[1], `'\''`, `'`)
	}
	return cmd
}
