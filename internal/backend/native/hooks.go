package native

import (
	"context"
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Where the loop runs the user's hooks (Config.Hooks, see package hooks):
// PreToolUse and PostToolUse around every tool call of every agent;
// UserPromptSubmit, SessionStart, Stop and SessionEnd for the lead;
// SubagentStart and SubagentStop for a sub-agent; PreCompact before a
// compaction; Notification when a call waits for a human's answer.

// maxStopBlocks bounds how often Stop hooks may send the agent back to
// work in one Run: a hook that always blocks must not loop for ever
// (Claude Code tells the hook stop_hook_active for the same reason).
const maxStopBlocks = 3

// isLead reports whether the session is the run's lead (not a sub-agent,
// not a teammate).
func (s *Session) isLead() bool { return s.cfg.ID == event.LeadID || s.cfg.ID == "" }

// isSubagent reports whether a task call started the session.
func (s *Session) isSubagent() bool { return s.cfg.TaskCallID != "" }

// hook runs the hooks of in.Event, each run reported as hook.run.
func (s *Session) hook(ctx context.Context, in hooks.Input, callID string) hooks.Result {
	if !s.cfg.Hooks.Has(in.Event) {
		return hooks.Result{}
	}
	in.SessionID = s.cfg.SessionID
	if s.isSubagent() && in.AgentID == "" {
		in.AgentID, in.AgentType = s.cfg.ID, s.cfg.Name
	}
	return s.cfg.Hooks.Run(ctx, in, func(d event.HookRunData) { s.emit(event.HookRun, callID, d) })
}

// preToolUse runs PreToolUse hooks for c and applies their decision
// through the gate: a deny (or exit 2) refuses the call with the reason;
// an ask asks even where the gate would allow; an allow skips the prompt
// but never a deny or ask rule (as in Claude Code). decided is false when
// no hook decided and the gate decides as usual.
func (s *Session) preToolUse(ctx context.Context, c provider.ToolCall, req permission.Request) (d permission.Decision, decided bool) {
	res := s.hook(ctx, hooks.Input{Event: hooks.PreToolUse, Tool: c.Name, ToolInput: c.Input, ToolUseID: c.ID}, c.ID)
	if res.Block || res.Decision == "deny" {
		reason := res.Reason
		if reason == "" {
			reason = res.DecisionReason
		}
		return permission.Decision{Reason: "blocked by a PreToolUse hook: " + reason}, true
	}
	switch res.Decision {
	case "ask":
		if s.cfg.Gate == nil {
			return permission.Decision{Allow: true}, true
		}
		if d, decided := s.cfg.Gate.Check(req); decided && !d.Allow {
			return d, true
		}
		return s.ask(ctx, c.ID, req), true
	case "allow":
		if s.cfg.Gate == nil {
			return permission.Decision{Allow: true}, true
		}
		if d, decided := s.cfg.Gate.CheckHookAllowed(req); decided {
			return d, true
		}
		return s.ask(ctx, c.ID, req), true
	}
	return permission.Decision{}, false
}

// postToolUse runs PostToolUse hooks after c ran successfully: exit 2 or
// a block's reason, and any additionalContext, are added to what the
// model reads of the result (the tool already ran).
func (s *Session) postToolUse(ctx context.Context, c provider.ToolCall, r tools.Result) tools.Result {
	if r.IsError || ctx.Err() != nil || !s.cfg.Hooks.Has(hooks.PostToolUse) {
		return r
	}
	resp := map[string]any{"content": r.Content}
	if c.Name == "bash" {
		resp["stdout"] = r.Content
	}
	res := s.hook(ctx, hooks.Input{Event: hooks.PostToolUse, Tool: c.Name, ToolInput: c.Input, ToolUseID: c.ID, ToolResponse: resp}, c.ID)
	if res.Block && res.Reason != "" {
		r.Content += "\n\nPostToolUse hook feedback:\n" + res.Reason
	}
	for _, t := range res.Context {
		r.Content += "\n\n" + t
	}
	return r
}

// startHooks runs SessionStart (lead) or SubagentStart (sub-agent) on a
// session's first Run and returns their context for its first request.
func (s *Session) startHooks(ctx context.Context) []provider.Part {
	var res hooks.Result
	switch {
	case s.isLead():
		source := "startup"
		if len(s.History()) > 0 {
			source = "resume"
		}
		res = s.hook(ctx, hooks.Input{Event: hooks.SessionStart, Source: source}, "")
	case s.isSubagent():
		res = s.hook(ctx, hooks.Input{Event: hooks.SubagentStart}, "")
	}
	return contextParts(res.Context, "SessionStart hook")
}

// promptHooks runs UserPromptSubmit for a prompt the user gave the lead:
// the context its hooks add goes with the prompt; a block keeps the
// prompt from the model (the error says why).
func (s *Session) promptHooks(ctx context.Context, prompt string) ([]provider.Part, error) {
	if prompt == "" || !s.isLead() {
		return nil, nil
	}
	res := s.hook(ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: prompt}, "")
	if res.Block {
		return nil, fmt.Errorf("%w: %s", ErrPromptBlocked, res.Reason)
	}
	if res.Stop {
		return nil, fmt.Errorf("%w: %s", ErrPromptBlocked, res.StopReason)
	}
	return contextParts(res.Context, "UserPromptSubmit hook"), nil
}

// stopHooks runs Stop (lead) or SubagentStop (sub-agent) when the model
// stopped; a block returns the reason the agent continues with, unless
// the hooks already did so maxStopBlocks times in this Run.
func (s *Session) stopHooks(ctx context.Context, blocks int, last string) (reason string, again bool) {
	e := hooks.Stop
	switch {
	case s.isSubagent():
		e = hooks.SubagentStop
	case !s.isLead():
		return "", false
	}
	res := s.hook(ctx, hooks.Input{Event: e, StopHookActive: blocks > 0, LastMessage: last}, "")
	if !res.Block || res.Stop || blocks >= maxStopBlocks || ctx.Err() != nil {
		return "", false
	}
	if res.Reason == "" {
		res.Reason = "a Stop hook asked to continue"
	}
	return fmt.Sprintf("%s hook feedback (continue working): %s", e, res.Reason), true
}

// notify runs Notification hooks while a call waits for a human's
// answer; the returned wait ends once they did (the answer does not wait
// for them).
func (s *Session) notify(ctx context.Context, callID string, req permission.Request) (wait func()) {
	if !s.cfg.Hooks.Has(hooks.Notification) {
		return func() {}
	}
	done := make(chan struct{})
	msg := fmt.Sprintf("Atomic needs your permission to use %s", hooks.ClaudeToolName(req.Tool))
	go func() {
		defer close(done)
		s.hook(ctx, hooks.Input{Event: hooks.Notification, Message: msg, NotificationType: "permission_prompt"}, callID)
	}()
	return func() { <-done }
}

// preCompact runs PreCompact hooks before the history is summarised.
func (s *Session) preCompact(ctx context.Context, trigger, instructions string) {
	t := "auto"
	if trigger == event.CompactManual {
		t = "manual"
	}
	s.hook(ctx, hooks.Input{Event: hooks.PreCompact, Trigger: t, CustomInstructions: instructions}, "")
}

// endHooks runs SessionEnd for the lead as its session closes, bounded
// by the hooks' own timeouts.
func (s *Session) endHooks() {
	if !s.isLead() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), hooks.DefaultTimeout)
	defer cancel()
	s.hook(ctx, hooks.Input{Event: hooks.SessionEnd, Reason: "other"}, "")
}

// contextParts are the hooks' context as text for the model, named by
// where it came from.
func contextParts(texts []string, from string) []provider.Part {
	if len(texts) == 0 {
		return nil
	}
	return []provider.Part{{Text: from + " additional context:\n" + strings.Join(texts, "\n")}}
}
