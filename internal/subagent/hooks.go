package subagent

import (
	"context"
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/spawn"
)

// maxStopBlocks bounds how often SubagentStop hooks send a CLI sub-agent
// back to work, as the native loop bounds its own (a hook that always
// blocks must not loop for ever).
const maxStopBlocks = 3

// ownHooks reports whether p's session runs SubagentStart and
// SubagentStop itself: the native loop does (its start context joins its
// first request, a stop block continues its loop). Every other backend's
// sub-agent (an external CLI, a task on the workers) has them run here,
// around its session, with the same JSON.
func ownHooks(p spawn.Plan) bool { return p.Backend == backend.Native }

// hook runs the user's hooks of e for t, each run reported as hook.run
// of t, as the native loop reports its own.
func (m *Manager) hook(ctx context.Context, t *Task, in hooks.Input) hooks.Result {
	if !m.cfg.Hooks.Has(in.Event) {
		return hooks.Result{}
	}
	in.SessionID, in.AgentID, in.AgentType = t.SessionID, t.ID, t.Type.Name
	return m.cfg.Hooks.Run(ctx, in, func(d event.HookRunData) {
		m.cfg.Sink.Emit(event.Event{Type: event.HookRun, Time: m.cfg.Now(), SessionID: t.SessionID,
			AgentID: t.ID, ParentAgentID: t.Spec.ParentID, Data: d})
	})
}

// startHook runs SubagentStart for t and returns prompt with the context
// its hooks add, which a CLI reads with its task.
func (m *Manager) startHook(ctx context.Context, t *Task, prompt string) string {
	res := m.hook(ctx, t, hooks.Input{Event: hooks.SubagentStart})
	if len(res.Context) == 0 {
		return prompt
	}
	return prompt + "\n\nSubagentStart hook additional context:\n" + strings.Join(res.Context, "\n")
}

// stopHook runs SubagentStop once t answered; a block sends it back
// (another turn) with the reason, at most maxStopBlocks times. A task on the workers takes one prompt: its block is reported
// (hook.run) but cannot continue it.
func (m *Manager) stopHook(ctx context.Context, t *Task, plan spawn.Plan, res *backend.Result, turn func(string) (*backend.Result, error)) (*backend.Result, error) {
	for blocks := 0; ; blocks++ {
		last := ""
		if res != nil {
			last = res.Text
		}
		h := m.hook(ctx, t, hooks.Input{Event: hooks.SubagentStop, StopHookActive: blocks > 0, LastMessage: last})
		if !h.Block || h.Stop || blocks >= maxStopBlocks || ctx.Err() != nil || plan.Backend == spawn.Remote {
			return res, nil
		}
		reason := h.Reason
		if reason == "" {
			reason = "a SubagentStop hook asked to continue"
		}
		r, err := turn(fmt.Sprintf("SubagentStop hook feedback (continue working): %s", reason))
		if err != nil {
			return nil, err
		}
		if r != nil && strings.TrimSpace(r.Text) != "" {
			res = r
		}
	}
}
