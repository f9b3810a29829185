package lifecycle

import "github.com/atomic-agent/atomic/internal/event"

// tally is what the reducer counts for one agent (the lead, a sub-agent, a
// teammate) from that agent's own events: the tool calls it started and
// the tokens it used. It is the one count of these facts: records, the
// json result, the footer and the spans read it.
type tally struct {
	toolUses int
	calls    map[string]struct{} // tool call ids counted, so a repeated tool.start counts once
	usage    event.Usage
}

// count applies e to the tally of e's agent: a tool.start is one more tool
// use (once per tool call id), a usage.update adds a delta or raises the
// agent's running total (a running total never lowers it, so the run's
// total never falls). It reports whether the tally changed.
func (s *State) count(e event.Event) bool {
	if e.AgentID == "" {
		return false
	}
	switch e.Type {
	case event.ToolStart:
		t := s.tallyOf(e.AgentID)
		if e.ToolCallID != "" {
			if _, dup := t.calls[e.ToolCallID]; dup {
				return false
			}
			if t.calls == nil {
				t.calls = make(map[string]struct{})
			}
			t.calls[e.ToolCallID] = struct{}{}
		}
		t.toolUses++
		return true
	case event.UsageUpdate:
		d, ok := event.Payload[event.UsageUpdateData](e.Data)
		if !ok {
			return false
		}
		return s.addUsage(e.AgentID, d.Usage, d.Delta)
	}
	return false
}

// addUsage adds u to agent's usage (delta) or raises it to u (a running
// total), keeping the run's total; it reports whether anything changed.
func (s *State) addUsage(agent string, u event.Usage, delta bool) bool {
	t := s.tallyOf(agent)
	old := t.usage
	if delta {
		t.usage = old.Add(nonNegative(u))
	} else {
		t.usage = atLeast(old, u)
	}
	if t.usage == old {
		return false
	}
	s.total = s.total.Add(since(t.usage, old))
	return true
}

func (s *State) tallyOf(agent string) *tally {
	if s.tallies == nil {
		s.tallies = make(map[string]*tally)
	}
	t := s.tallies[agent]
	if t == nil {
		t = &tally{}
		s.tallies[agent] = t
	}
	return t
}

// ToolUses is the number of tool calls agent has started (its tool.start
// events, one per tool call id).
func (s *State) ToolUses(agent string) int {
	if t := s.tallies[agent]; t != nil {
		return t.toolUses
	}
	return 0
}

// Usage is agent's usage so far.
func (s *State) Usage(agent string) event.Usage {
	if t := s.tallies[agent]; t != nil {
		return t.usage
	}
	return event.Usage{}
}

// TotalUsage is the run's usage: every agent's added up.
func (s *State) TotalUsage() event.Usage { return s.total }

// Restore raises agent's counts to those of a resumed session: toolUses
// tool calls and usage u so far (a running total, as a usage.update
// reporting it would).
func (s *State) Restore(agent string, toolUses int, u event.Usage) {
	if agent == "" {
		return
	}
	s.addUsage(agent, u, false)
	t := s.tallyOf(agent)
	t.toolUses = max(t.toolUses, toolUses)
}

// Tallies is every agent's tool uses and usage so far, by agent id.
func (s *State) Tallies() map[string]Tally {
	out := make(map[string]Tally, len(s.tallies))
	for id, t := range s.tallies {
		out[id] = Tally{ToolUses: t.toolUses, Usage: t.usage}
	}
	return out
}

// Tally is what the reducer counted for one agent.
type Tally struct {
	ToolUses int
	Usage    event.Usage
}

// Resolve sets in e the counts the reducer holds once e is applied: a
// usage.update carries its agent's running total and the run's total (a
// delta is resolved into the total it makes), a subagent.update or
// subagent.complete its agent's tool uses and usage. Other events are left
// as they are. The bus delivers resolved events, so what every subscriber
// and the wire see is the reducer's one count. It takes e by pointer: the
// bus resolves every event, and most need nothing.
func (s *State) Resolve(e *event.Event) {
	if e.AgentID == "" {
		return
	}
	switch e.Type {
	case event.UsageUpdate:
		if d, ok := event.Payload[event.UsageUpdateData](e.Data); ok {
			d.Usage, d.Total, d.Delta = s.Usage(e.AgentID), s.total, false
			e.Data = d
		}
	case event.SubagentUpdate:
		if d, ok := event.Payload[event.SubagentUpdateData](e.Data); ok {
			d.ToolUses, d.Usage = s.ToolUses(e.AgentID), s.Usage(e.AgentID)
			e.Data = d
		}
	case event.SubagentComplete:
		if d, ok := event.Payload[event.SubagentCompleteData](e.Data); ok {
			d.ToolUses, d.Usage = s.ToolUses(e.AgentID), s.Usage(e.AgentID)
			e.Data = d
		}
	case event.TeammateStatus:
		// An idle teammate whose own agents or shells run is waiting.
		if d, ok := event.Payload[event.TeammateStatusData](e.Data); ok && d.Status == string(MateIdle) {
			if m, ok := s.Teammate(d.Name); ok && m.AgentID == e.AgentID && m.Status == MateWaiting {
				d.Status = string(MateWaiting)
				e.Data = d
			}
		}
	}
}

// atLeast is u raised, count by count, to at least v.
func atLeast(u, v event.Usage) event.Usage {
	return event.Usage{
		InputTokens: max(u.InputTokens, v.InputTokens), OutputTokens: max(u.OutputTokens, v.OutputTokens),
		CacheReadTokens:     max(u.CacheReadTokens, v.CacheReadTokens),
		CacheCreationTokens: max(u.CacheCreationTokens, v.CacheCreationTokens),
		ContextWindow:       max(u.ContextWindow, v.ContextWindow), CostUSD: max(u.CostUSD, v.CostUSD),
	}
}

// since is what u has more than old (u is at least old, count by count);
// the context window is u's.
func since(u, old event.Usage) event.Usage {
	return event.Usage{
		InputTokens: u.InputTokens - old.InputTokens, OutputTokens: u.OutputTokens - old.OutputTokens,
		CacheReadTokens:     u.CacheReadTokens - old.CacheReadTokens,
		CacheCreationTokens: u.CacheCreationTokens - old.CacheCreationTokens,
		ContextWindow:       u.ContextWindow, CostUSD: u.CostUSD - old.CostUSD,
	}
}

// nonNegative is u with negative counts (never reported by a real
// backend) taken as zero, so a delta never lowers a total.
func nonNegative(u event.Usage) event.Usage { return atLeast(u, event.Usage{}) }
