// Package usage totals token usage per agent and for the whole run.
package usage

import (
	"sort"
	"sync"

	"github.com/atomic-agent/atomic/internal/event"
)

// Meter accumulates usage. Safe for concurrent use.
type Meter struct {
	mu     sync.Mutex
	total  event.Usage
	agents map[string]event.Usage
}

// NewMeter returns an empty Meter.
func NewMeter() *Meter { return &Meter{agents: map[string]event.Usage{}} }

// Add records u for agent and returns that agent's and the run's totals.
func (m *Meter) Add(agent string, u event.Usage) (agentTotal, runTotal event.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.agents[agent].Add(u)
	m.agents[agent] = a
	m.total = m.total.Add(u)
	return a, m.total
}

// Set records u as agent's whole usage so far (a backend that reports
// running totals, as an external CLI does) and returns the run's total.
func (m *Meter) Set(agent string, u event.Usage) event.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.agents[agent]
	m.agents[agent] = u
	m.total = m.total.Add(u).Add(event.Usage{
		InputTokens: -old.InputTokens, OutputTokens: -old.OutputTokens,
		CacheReadTokens: -old.CacheReadTokens, CacheCreationTokens: -old.CacheCreationTokens, CostUSD: -old.CostUSD,
	})
	return m.total
}

// Total is the run's usage.
func (m *Meter) Total() event.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// Agent is one agent's usage.
func (m *Meter) Agent(id string) event.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.agents[id]
}

// Agents lists the agent ids with usage, sorted.
func (m *Meter) Agents() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.agents))
	for id := range m.agents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// External meters a usage.update that an external CLI reports, whose usage
// is the agent's running total rather than one request's, and returns e
// with the run's total in place of the CLI's own. Other events pass
// unchanged.
func (m *Meter) External(e event.Event) event.Event {
	if d, ok := e.Data.(event.UsageUpdateData); ok && e.AgentID != "" {
		d.Total = m.Set(e.AgentID, d.Usage)
		e.Data = d
	}
	return e
}
