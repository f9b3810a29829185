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

// A reserved task call is read once: Start spawns what Reserve read (the
// input is not parsed again), and the reservation carries the subject the
// loop labels the call's approval with.
func TestStartSpawnsWhatReserveReadWithoutParsingTheInputAgain(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m := newManager(t, p, 5, &sink{})
	tool := NewTaskTool(m)
	call := tools.Call{ID: "call-1", AgentID: "lead", Input: json.RawMessage(`{"description":"audit the auth code","prompt":"A","mode":"background"}`)}
	r, err := tool.Reserve(call)
	if err != nil {
		t.Fatal(err)
	}
	if r.Subject != "audit the auth code" {
		t.Fatalf("reservation subject %q, want the task's description", r.Subject)
	}
	call.Input = json.RawMessage(`not json: a second parse would fail`)
	wait, err := tool.Start(context.Background(), call)
	if err != nil {
		t.Fatalf("Start parsed the input again: %v", err)
	}
	res, err := wait()
	if err != nil || !strings.Contains(res.Content, "Started background task "+r.AgentID) || !strings.Contains(res.Content, "audit the auth code") {
		t.Fatalf("result %q, %v: want the reserved background task %s started", res.Content, err, r.AgentID)
	}
	if _, still := m.Reserved(call.ID); still {
		t.Fatal("the reservation outlived the spawn")
	}
}

func TestAnUnreservedCallWithABadInputIsReportedByStart(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m := newManager(t, p, 5, &sink{})
	_, err := NewTaskTool(m).Start(context.Background(), tools.Call{ID: "call-1", AgentID: "lead", Input: json.RawMessage(`{"description":"d","prompt":"  "}`)})
	if err == nil || !strings.Contains(err.Error(), "prompt is empty") {
		t.Fatalf("err %v, want the empty prompt named", err)
	}
}
