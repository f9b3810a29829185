// Package stats sums up agent spans of many sessions per agent type and
// backend: how many were spawned, how many failed, how long they took
// (p50, p95), how many were interrupted, their tool uses, tokens (prompt cache reads and writes
// apart) and cost. Aggregate is pure; the
// sources read spans from a session store's events or the lifecycle log.
package stats

import (
	"cmp"
	"slices"
	"time"

	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/observe"
)

// Row is the figures of one agent type on one backend.
type Row struct {
	Type    string `json:"type"`
	Backend string `json:"backend"`
	Spawns  int    `json:"spawns"`
	Errors  int    `json:"errors"`
	// Interrupted counts the agents the user interrupted or cancelled
	// (and those a run's end cut off).
	Interrupted  int           `json:"interrupted"`
	P50          time.Duration `json:"-"`
	P95          time.Duration `json:"-"`
	P50MS        int64         `json:"p50_ms"`
	P95MS        int64         `json:"p95_ms"`
	ToolUses     int           `json:"tool_uses"`
	InputTokens  int64         `json:"input_tokens"`
	OutputTokens int64         `json:"output_tokens"`
	// Input read from and written to the provider's prompt cache,
	// beside InputTokens (priced apart).
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	Tokens           int64   `json:"tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

// Aggregate groups ended spans by type and backend. Rows come most
// spawned first, then by type and backend. Spans still open are skipped.
func Aggregate(spans []observe.Span) []Row {
	type key struct{ typ, backend string }
	type acc struct {
		Row
		durations []time.Duration
	}
	byKey := map[key]*acc{}
	for _, s := range spans {
		if s.End.IsZero() {
			continue
		}
		k := key{s.Type, s.Backend}
		r := byKey[k]
		if r == nil {
			r = &acc{Row: Row{Type: s.Type, Backend: s.Backend}}
			byKey[k] = r
		}
		r.Spawns++
		switch {
		case s.Failed():
			r.Errors++
		case s.Status == string(lifecycle.Interrupted):
			r.Interrupted++
		}
		r.durations = append(r.durations, s.Duration())
		r.ToolUses += s.ToolUses
		r.InputTokens += s.Usage.InputTokens
		r.OutputTokens += s.Usage.OutputTokens
		r.CacheReadTokens += s.Usage.CacheReadTokens
		r.CacheWriteTokens += s.Usage.CacheCreationTokens
		r.Tokens += s.Usage.Total()
		r.CostUSD += s.Usage.CostUSD
	}
	rows := make([]Row, 0, len(byKey))
	for _, r := range byKey {
		slices.Sort(r.durations)
		r.P50, r.P95 = Percentile(r.durations, 50), Percentile(r.durations, 95)
		r.P50MS, r.P95MS = r.P50.Milliseconds(), r.P95.Milliseconds()
		rows = append(rows, r.Row)
	}
	slices.SortFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(b.Spawns, a.Spawns), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Backend, b.Backend))
	})
	return rows
}

// Percentile is the nearest-rank p-th percentile of sorted (0 when empty):
// the smallest value with at least p% of the values at or below it.
func Percentile(sorted []time.Duration, p int) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := (p*n + 99) / 100 // ceil(p/100 * n)
	return sorted[min(max(rank, 1), n)-1]
}
