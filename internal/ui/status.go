package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-agent/atomic/internal/event"
)

// usageInfo is what the status line knows about tokens, kept from
// usage.update events.
type usageInfo struct {
	lead  event.Usage // the lead's running total
	total event.Usage // the run's total
	// context is the size of the lead's last request (input and cache
	// tokens plus its output), the best measure of the context used.
	context int64
	// agents is each agent's context use as its loop reports it (native
	// agents; see /context).
	agents map[string]contextUse
}

// contextUse is an agent's context: tokens used of its window (0: unknown).
type contextUse struct{ used, window int64 }

// setContext records agent id's context use.
func (u *usageInfo) setContext(id string, c contextUse) {
	if id == "" {
		id = event.LeadID
	}
	if u.agents == nil {
		u.agents = map[string]contextUse{}
	}
	if c.window == 0 {
		c.window = u.agents[id].window
	}
	u.agents[id] = c
	if id == event.LeadID {
		u.context = c.used
	}
}

// update applies a usage.update.
func (u *usageInfo) update(agentID string, d event.UsageUpdateData) {
	if agentID == event.LeadID || agentID == "" {
		prev := u.lead
		if d.Usage.Total() >= prev.Total() {
			in := d.Usage.InputTokens - prev.InputTokens + d.Usage.CacheReadTokens - prev.CacheReadTokens +
				d.Usage.CacheCreationTokens - prev.CacheCreationTokens
			if in > 0 {
				u.context = in + d.Usage.OutputTokens - prev.OutputTokens
			}
		}
		u.lead = d.Usage
	}
	if d.Context > 0 {
		u.setContext(agentID, contextUse{used: d.Context, window: d.Usage.ContextWindow})
	}
	if d.Total.Total() >= u.total.Total() {
		u.total = d.Total
	}
}

// statusLine is the bottom line: model, context used, tokens and cost, and
// active agents, with the key hint that matters now.
type statusLine struct {
	Model           string
	Usage           usageInfo
	ActiveAgents    int
	ActiveTeammates int
	Busy            bool
	Approvals       int
	Expanded        bool
	// Retry is a provider retry counting down; it leads the line.
	Retry string
	// Mode is the permission mode when not default (Shift+Tab cycles it).
	Mode string
}

func (s statusLine) render(th Theme, width int) string {
	parts := []string{s.Model}
	ctx := "ctx " + tokens(s.Usage.context)
	if w := s.Usage.total.ContextWindow; w > 0 {
		ctx += fmt.Sprintf("/%s (%d%%)", tokens(w), s.Usage.context*100/w)
	}
	parts = append(parts, ctx)
	tot := s.Usage.total
	in := tot.InputTokens + tot.CacheReadTokens + tot.CacheCreationTokens
	cached := ""
	if tot.CacheReadTokens > 0 {
		// The share of input the prompt cache served, at a tenth of the price.
		cached = fmt.Sprintf(", %d%% cached", tot.CacheReadTokens*100/in)
	}
	parts = append(parts, fmt.Sprintf("%s tokens (↑%s ↓%s%s)", tokens(tot.Total()), tokens(in), tokens(tot.OutputTokens), cached))
	parts = append(parts, fmt.Sprintf("$%.4f", tot.CostUSD))
	if s.ActiveAgents > 0 {
		parts = append(parts, plural(s.ActiveAgents, "agent", "agents")+" active")
	}
	if s.ActiveTeammates > 0 {
		parts = append(parts, plural(s.ActiveTeammates, "teammate", "teammates")+" active")
	}
	left := th.muted().Render(strings.Join(parts, " · "))
	if s.Mode != "" {
		left = th.fg(th.Warning).Render(s.Mode+" (shift+tab to cycle)") + th.muted().Render(" · ") + left
	}
	if s.Retry != "" {
		left = th.fg(th.Warning).Render(s.Retry) + th.muted().Render(" · ") + left
	}
	var hint string
	switch {
	case s.Approvals > 0:
		hint = "approval needed"
	case s.Busy || s.ActiveAgents > 0:
		hint = "esc to interrupt"
	case s.Expanded:
		hint = "ctrl+o collapse · /help"
	default:
		hint = "ctrl+o expand · /help"
	}
	right := th.accent().Render(hint)
	gap := width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return fit(left, width)
	}
	return left + strings.Repeat(" ", gap) + right
}

// tokens renders a token count compactly: 950, 12.3k, 1.2M.
func tokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
