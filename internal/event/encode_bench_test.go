package event

import (
	"encoding/json"
	"io"
	"testing"
	"time"
)

// BenchmarkEncodeStreamJSON encodes a realistic mix of events as stream-json
// lines. Budget: over 200,000 events/s.
func BenchmarkEncodeStreamJSON(b *testing.B) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)
	evs := []Event{
		{Type: MessageDelta, Time: now, SessionID: "atomic-1", AgentID: "lead", Data: MessageDeltaData{Text: "Looking at the handlers "}},
		{Type: ToolStart, Time: now, SessionID: "atomic-1", AgentID: "explore-1", ParentAgentID: "lead", ToolCallID: "toolu_01", Data: ToolStartData{Name: "grep", Input: json.RawMessage(`{"pattern":"func.*Auth","path":"internal/"}`)}},
		{Type: ToolComplete, Time: now, SessionID: "atomic-1", AgentID: "explore-1", ParentAgentID: "lead", ToolCallID: "toolu_01", Data: ToolCompleteData{Name: "grep", Success: true, Result: "internal/auth/handler.go\ninternal/auth/session.go"}},
		{Type: SubagentUpdate, Time: now, SessionID: "atomic-1", AgentID: "explore-1", ParentAgentID: "lead", ToolCallID: "toolu_00", Data: SubagentUpdateData{CurrentTool: "grep func.*Auth", ToolUses: 4, Usage: Usage{InputTokens: 1200, OutputTokens: 300}}},
		{Type: UsageUpdate, Time: now, SessionID: "atomic-1", AgentID: "lead", Data: UsageUpdateData{Usage: Usage{InputTokens: 5000, OutputTokens: 700}, Total: Usage{InputTokens: 9000, OutputTokens: 1500}, Active: 2}},
	}
	enc := NewEncoder(io.Discard)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := enc.Encode(evs[i%len(evs)]); err != nil {
			b.Fatal(err)
		}
	}
	enc.Flush()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
