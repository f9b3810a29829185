package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/ui"
)

// BenchmarkResumeToFirstFrame: a 10,000-event session (deltas, tool
// calls, sub-agents and their progress) from the store to the resumed
// chat's first frame: loading its events, prompts and histories, then
// replaying them into the UI model and rendering. Budget: under 200 ms.
func BenchmarkResumeToFirstFrame(b *testing.B) {
	dir, state := b.TempDir(), b.TempDir()
	const id, n = "bench-session", 10000
	rec := store.Record(filepath.Join(state, "atomic", store.FileName), store.Options{},
		store.Meta{ID: id, Dir: dir, Backend: "native", Model: "m"}, nil)
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rec.Prompt("explore the project")
	for i := 0; i < n; i++ {
		at = at.Add(time.Millisecond)
		e := event.Event{Time: at, SessionID: id, AgentID: "lead"}
		agent := fmt.Sprintf("explore-%d", i/500+1)
		switch i % 500 {
		case 0:
			e.Type, e.ToolCallID = event.ToolStart, "call-"+agent
			e.Data = event.ToolStartData{Name: "task", Input: []byte(`{"description":"look","prompt":"look","subagent_type":"explore"}`), SubagentID: agent}
		case 1:
			e.Type, e.AgentID, e.ParentAgentID, e.ToolCallID = event.SubagentStart, agent, "lead", "call-"+agent
			e.Data = event.SubagentStartData{AgentType: "explore", Description: "look"}
		case 498:
			e.Type, e.AgentID, e.ParentAgentID, e.ToolCallID = event.SubagentComplete, agent, "lead", "call-"+agent
			e.Data = event.SubagentCompleteData{Success: true, Result: "found it", ToolUses: 40}
		case 499:
			e.Type, e.ToolCallID = event.ToolComplete, "call-"+agent
			e.Data = event.ToolCompleteData{Name: "task", Success: true, Result: "found it"}
		default:
			if i%2 == 0 {
				e.Type, e.AgentID, e.ParentAgentID, e.ToolCallID = event.SubagentUpdate, agent, "lead", "call-"+agent
				e.Data = event.SubagentUpdateData{CurrentTool: "read main.go", ToolUses: i % 500 / 10}
			} else {
				e.Type, e.Data = event.MessageDelta, event.MessageDeltaData{Text: "some words of the answer "}
			}
		}
		rec.Emit(e)
	}
	rec.Close()
	env := map[string]string{"HOME": dir, "XDG_STATE_HOME": state}
	ios := IOStreams{Getenv: func(k string) string { return env[k] }, Dir: dir}
	c := common{cont: true}
	b.ResetTimer()
	for range b.N {
		res, err := c.resumeSession(context.Background(), ios, &setup{})
		if err != nil {
			b.Fatal(err)
		}
		m := ui.New(ui.Config{Past: res.past()})
		if len(res.run.Events) != n || m.Render() == "" {
			b.Fatalf("%d events replayed", len(res.run.Events))
		}
	}
}
