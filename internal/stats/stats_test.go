package stats

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/observe"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// span is an ended span of typ on backend lasting d.
func span(typ, backend string, d time.Duration, status string, tools int, u event.Usage) observe.Span {
	return observe.Span{Kind: observe.KindSubagent, Type: typ, Backend: backend, Start: t0, End: t0.Add(d), Status: status, ToolUses: tools, Usage: u}
}

func TestPercentileIsTheNearestRank(t *testing.T) {
	tests := []struct {
		name   string
		values []time.Duration
		p      int
		want   time.Duration
	}{
		{"no values", nil, 50, 0},
		{"one value is every percentile", []time.Duration{ms(7)}, 95, ms(7)},
		{"p50 of two is the lower", []time.Duration{ms(1), ms(2)}, 50, ms(1)},
		{"p50 of four is the second", []time.Duration{ms(1), ms(2), ms(3), ms(4)}, 50, ms(2)},
		{"p95 of twenty is the nineteenth", seq(20), 95, ms(19)},
		{"p95 of ten is the largest", seq(10), 95, ms(10)},
		{"p50 of 101 is the middle", seq(101), 50, ms(51)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.values, tt.p); got != tt.want {
				t.Errorf("Percentile(%v, %d) = %v, want %v", tt.values, tt.p, got, tt.want)
			}
		})
	}
}

// seq is 1..n milliseconds.
func seq(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = ms(i + 1)
	}
	return out
}

func TestAggregateGroupsByTypeAndBackend(t *testing.T) {
	u := func(in, out int64, cost float64) event.Usage {
		return event.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: 1, CacheCreationTokens: 2, CostUSD: cost}
	}
	tests := []struct {
		name  string
		spans []observe.Span
		want  []Row
	}{{
		name: "no spans, no rows",
	}, {
		name: "one type on two backends is two rows, most spawned first; errors and interruptions are counted apart",
		spans: []observe.Span{
			span("Explore", "native", ms(100), "completed", 2, u(10, 1, 0.1)),
			span("Explore", "claude-code", ms(900), "completed", 5, u(20, 2, 0.2)),
			span("Explore", "native", ms(300), "error", 1, u(30, 3, 0.3)),
			span("Explore", "native", ms(200), "interrupted", 0, u(0, 0, 0)),
		},
		want: []Row{
			{Type: "Explore", Backend: "native", Spawns: 3, Errors: 1, Interrupted: 1, P50: ms(200), P95: ms(300), P50MS: 200, P95MS: 300,
				ToolUses: 3, InputTokens: 40, OutputTokens: 4, CacheReadTokens: 3, CacheWriteTokens: 6, Tokens: 53, CostUSD: 0.4},
			{Type: "Explore", Backend: "claude-code", Spawns: 1, P50: ms(900), P95: ms(900), P50MS: 900, P95MS: 900,
				ToolUses: 5, InputTokens: 20, OutputTokens: 2, CacheReadTokens: 1, CacheWriteTokens: 2, Tokens: 25, CostUSD: 0.2},
		},
	}, {
		name: "equal counts sort by type then backend; open spans are not counted",
		spans: []observe.Span{
			span("reviewer", "codex", ms(50), "completed", 0, event.Usage{}),
			span("lead", "native", ms(5000), "completed", 4, event.Usage{}),
			{Type: "lead", Backend: "native", Start: t0}, // still open
		},
		want: []Row{
			{Type: "lead", Backend: "native", Spawns: 1, P50: ms(5000), P95: ms(5000), P50MS: 5000, P95MS: 5000, ToolUses: 4},
			{Type: "reviewer", Backend: "codex", Spawns: 1, P50: ms(50), P95: ms(50), P50MS: 50, P95MS: 50},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Aggregate(tt.spans)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSinceReadsDurationsDaysDatesAndTimes(t *testing.T) {
	now := time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"", time.Time{}, false},
		{"90m", now.Add(-90 * time.Minute), false},
		{"24h", now.Add(-24 * time.Hour), false},
		{"7d", now.AddDate(0, 0, -7), false},
		{"2026-11-01", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-11-20T10:00:00Z", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), false},
		{"-5h", time.Time{}, true},
		{"yesterday", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSince(tt.in, now)
			if (err != nil) != tt.wantErr || !got.Equal(tt.want) {
				t.Errorf("ParseSince(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
