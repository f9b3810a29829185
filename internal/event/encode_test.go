package event

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestEncoderWritesOneSnakeCaseObjectPerLineWithEmptyFieldsOmitted(t *testing.T) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	at := time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)
	enc.Encode(Event{Type: ToolStart, Time: at, SessionID: "s1", AgentID: "lead", ToolCallID: "toolu_1",
		Data: ToolStartData{Name: "read", Input: json.RawMessage(`{"file_path":"a.go"}`)}})
	enc.Encode(Event{Type: TurnEnd, Time: at, AgentID: "lead"})
	enc.Flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	want := `{"type":"tool.start","time":"2026-11-22T10:00:00.123456789Z","session_id":"s1","agent_id":"lead","tool_call_id":"toolu_1","data":{"name":"read","input":{"file_path":"a.go"}}}`
	if lines[0] != want {
		t.Fatalf("got  %s\nwant %s", lines[0], want)
	}
	if strings.Contains(lines[1], "parent_agent_id") || strings.Contains(lines[1], `"data"`) {
		t.Fatalf("empty fields must be omitted: %s", lines[1])
	}
	var raw Raw
	if err := json.Unmarshal([]byte(lines[0]), &raw); err != nil || raw.Type != ToolStart {
		t.Fatalf("round trip: %+v %v", raw, err)
	}
	d, ok := Payload[ToolStartData](raw.Data)
	if !ok || d.Name != "read" {
		t.Fatalf("payload from raw JSON: %+v", d)
	}
}

func TestUsageAddKeepsTheLargestContextWindow(t *testing.T) {
	u := Usage{InputTokens: 1, ContextWindow: 200000}.Add(Usage{InputTokens: 2, OutputTokens: 3, ContextWindow: 128000, CostUSD: 0.5})
	if u.InputTokens != 3 || u.OutputTokens != 3 || u.ContextWindow != 200000 || u.CostUSD != 0.5 || u.Total() != 6 {
		t.Fatalf("%+v", u)
	}
}

func TestRawEventKeepsEveryFieldAndLeavesThePayloadForPayload(t *testing.T) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	at := time.Date(2026, 11, 22, 10, 0, 0, 123, time.UTC)
	in := Event{Type: ToolStart, Time: at, SessionID: "s/x", AgentID: "explore-1", ParentAgentID: "lead",
		ToolCallID: "c1", Data: ToolStartData{Name: "read", SubagentID: "x"}}
	if err := enc.Encode(in); err != nil || enc.Flush() != nil {
		t.Fatal(err)
	}
	var raw Raw
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	got := raw.Event()
	if !got.Time.Equal(at) || got.Type != in.Type || got.SessionID != in.SessionID || got.AgentID != in.AgentID ||
		got.ParentAgentID != in.ParentAgentID || got.ToolCallID != in.ToolCallID {
		t.Fatalf("Event() = %+v, want the fields of %+v", got, in)
	}
	if d, ok := Payload[ToolStartData](got.Data); !ok || d.Name != "read" || d.SubagentID != "x" {
		t.Fatalf("payload %+v, %v", d, ok)
	}
}

func TestSubagentStartOfAnIsolatedAgentCarriesItsWorktreeInStreamJSON(t *testing.T) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	enc.Encode(Event{Type: SubagentStart, AgentID: "general-purpose-1",
		Data: SubagentStartData{AgentType: "general-purpose", Backend: "native", Worktree: "/repo/.atomic/worktrees/general-purpose-1"}})
	enc.Encode(Event{Type: SubagentStart, AgentID: "explore-1", Data: SubagentStartData{AgentType: "explore"}})
	enc.Flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if !strings.Contains(lines[0], `"data":{"agent_type":"general-purpose","backend":"native","worktree":"/repo/.atomic/worktrees/general-purpose-1"}`) {
		t.Fatalf("isolated: %s", lines[0])
	}
	if strings.Contains(lines[1], "worktree") {
		t.Fatalf("an agent not isolated names a worktree: %s", lines[1])
	}
}
