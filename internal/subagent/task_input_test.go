package subagent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// The task tool and the tree read a task call with one parser: a call the
// tree shows as background runs in the background, and one it shows
// running is waited for.
func TestTheTaskToolRunsInTheBackgroundExactlyTheCallsTheTreeShowsAsBackground(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m := newManager(t, p, 5, &sink{})
	tool := NewTaskTool(m)
	for i, input := range []string{
		`{"description":"d","prompt":"A","mode":"background"}`,
		`{"description":"d","prompt":"A","mode":"Background"}`,
		`{"description":"d","prompt":"A","mode":"async"}`,
		`{"description":"d","prompt":"A","run_in_background":true}`,
		`{"description":"d","prompt":"A","mode":"sync"}`,
		`{"description":"d","prompt":"A"}`,
	} {
		call := tools.Call{ID: "call-" + string(rune('a'+i)), AgentID: "lead", Input: json.RawMessage(input)}
		rec, _ := lifecycle.Step(lifecycle.Record{}, event.Event{Type: event.ToolStart, Time: time.Now(), AgentID: "lead",
			ToolCallID: call.ID, Data: event.ToolStartData{Name: "task", Input: call.Input}})
		wait, err := tool.Start(context.Background(), call)
		if err != nil {
			t.Fatalf("%s: %v", input, err)
		}
		res, err := wait()
		if err != nil {
			t.Fatalf("%s: %v", input, err)
		}
		ranInBackground := strings.HasPrefix(res.Content, "Started background task")
		if ranInBackground != rec.Background || (rec.Background != (rec.Status == lifecycle.Background)) {
			t.Errorf("%s: ran in the background %v, the tree shows background %v (%s)", input, ranInBackground, rec.Background, rec.Status)
		}
	}
}
