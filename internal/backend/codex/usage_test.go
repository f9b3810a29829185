package codex

import (
	"encoding/json"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
)

// TestReplayEachAgentsUsageIsItsThreadsTotalCountedOnceThoughAReportRepeats
// replays the v1 fan-out, once as captured and once with every
// thread/tokenUsage/updated sent twice: each agent's usage, as the reducer
// adds the translator's deltas, is the final total of its threads (the
// lead's three, each sub-agent's own), and a repeated report adds nothing.
func TestReplayEachAgentsUsageIsItsThreadsTotalCountedOnceThoughAReportRepeats(t *testing.T) {
	for _, repeat := range []bool{false, true} {
		r, sink := newReplayed()
		tr := NewTranslator(backend.Config{SessionID: "s1", AgentID: "lead", Gate: allowAll(t), Sink: sink},
			func(json.RawMessage, any, *rpcError) error { return nil })
		final := map[string]tokenCounts{} // thread → its last reported total
		for _, m := range readCapture(t, "codex-subagents-appserver.jsonl") {
			times := 1
			if m.Params.TokenUsage != nil {
				final[m.Params.ThreadID] = m.Params.TokenUsage.Total
				if repeat {
					times = 2
				}
			}
			for range times {
				n, err := replayMessage(tr, m)
				if err != nil {
					t.Fatal(err)
				}
				r.note(n)
			}
		}
		want := map[string]event.Usage{}
		for th, n := range final {
			id := "lead" // an earlier lead thread is no agent's now
			if a := tr.of(th); a != nil {
				id = a.ID
			}
			want[id] = want[id].Add(event.Usage{InputTokens: n.InputTokens - n.CachedInputTokens,
				CacheReadTokens: n.CachedInputTokens, OutputTokens: n.OutputTokens})
		}
		if len(want) != 5 { // the lead and four sub-agents that made a request
			t.Fatalf("usage reported by %d agents (%v), want the lead and four sub-agents", len(want), want)
		}
		for id, w := range want {
			got := r.state.Usage(id)
			got.ContextWindow = 0
			if got != w {
				t.Errorf("repeat %v: %s usage %+v, want its threads' totals %+v", repeat, id, got, w)
			}
		}
		if u := tr.LeadUsage(); u.InputTokens != want["lead"].InputTokens || u.OutputTokens != want["lead"].OutputTokens {
			t.Errorf("repeat %v: LeadUsage %+v, want the lead's %+v", repeat, u, want["lead"])
		}
	}
}
