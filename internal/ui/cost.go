package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
)

// costRow is one line of /cost: agents of one type and what they used.
type costRow struct {
	label  string
	agents int
	usage  event.Usage
}

// costCommand shows the session's tokens and cost, per agent type, as the
// run's reducer counts them (a resumed session's earlier runs included).
func (m *Model) costCommand() {
	r := m.cfg.Backend.Reducer()
	if r == nil {
		return
	}
	rows := []*costRow{{label: "lead", agents: 1, usage: r.Usage(event.LeadID)}}
	byLabel := map[string]*costRow{}
	add := func(label, agent string) {
		row := byLabel[label]
		if row == nil {
			row = &costRow{label: label}
			byLabel[label] = row
			rows = append(rows, row)
		}
		row.agents++
		row.usage = row.usage.Add(r.Usage(agent))
	}
	for _, rec := range r.Agents() {
		add(strings.ToLower(rec.Name), rec.ID)
	}
	seen := map[string]bool{}
	for _, tm := range r.Teammates() {
		if !seen[tm.AgentID] { // a teammate restarted keeps its agent id
			seen[tm.AgentID] = true
			add("teammate", tm.AgentID)
		}
	}
	slices.SortStableFunc(rows[1:], func(a, b *costRow) int { return strings.Compare(a.label, b.label) })
	total := r.TotalUsage()
	var b strings.Builder
	fmt.Fprintf(&b, "Session cost: $%.4f · %s", total.CostUSD, usageWords(total))
	for _, row := range rows {
		label := row.label
		if row.agents > 1 {
			label += fmt.Sprintf(" ×%d", row.agents)
		}
		fmt.Fprintf(&b, "\n  %-18s $%.4f · %s", label, row.usage.CostUSD, usageWords(row.usage))
	}
	if total.CostUSD == 0 && total.Total() > 0 {
		b.WriteString("\n  (no price known for this model: tokens only)")
	}
	m.note(noteInfo, b.String())
}

// usageWords says u's tokens: total, in and out, and the cached share.
func usageWords(u event.Usage) string {
	in := u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
	s := fmt.Sprintf("%s tokens (↑%s ↓%s", tokens(u.Total()), tokens(in), tokens(u.OutputTokens))
	if u.CacheReadTokens > 0 {
		s += fmt.Sprintf(", %d%% cached", u.CacheReadTokens*100/in)
	}
	return s + ")"
}
