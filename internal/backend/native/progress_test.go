package native

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// subjectProbe is a probe whose calls have a subject (its key), counting
// how often it is asked for it.
type subjectProbe struct {
	probe
	asked atomic.Int32
}

func (p *subjectProbe) Subject(in json.RawMessage) string {
	p.asked.Add(1)
	var v struct{ Key string }
	_ = json.Unmarshal(in, &v)
	return v.Key
}

func TestASubAgentReportsEachToolAndItsSubjectAsProgressUnderItsTaskCall(t *testing.T) {
	p, _ := testkit.Model(t, scenario("look", "b"))
	pr := &subjectProbe{probe: probe{name: "look", kind: tools.ReadOnly}}
	rec := &recorder{}
	s := New(Config{SessionID: "s/explore-1", ID: "explore-1", ParentID: "lead", TaskCallID: "toolu_task",
		Provider: p, Sink: rec, Tools: tools.NewSet(pr)})
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	ups := rec.of(event.SubagentUpdate)
	if len(ups) != 3 {
		t.Fatalf("%d subagent.update events, want one per tool call (3)", len(ups))
	}
	var got []string
	for _, e := range ups {
		if e.AgentID != "explore-1" || e.ParentAgentID != "lead" || e.ToolCallID != "toolu_task" || e.SessionID != "s/explore-1" {
			t.Fatalf("update %+v: want the agent's id, parent, session and the task call that started it", e)
		}
		got = append(got, e.Data.(event.SubagentUpdateData).CurrentTool)
	}
	slices.Sort(got) // the three calls run concurrently
	if !slices.Equal(got, []string{"look a", "look b", "look c"}) {
		t.Fatalf("current tools %q, want each call's tool and its subject", got)
	}
	if n := pr.asked.Load(); n != 3 {
		t.Fatalf("subject read %d times for 3 calls, want once per call", n)
	}
	// Each update follows its own call's tool.start.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	started := map[string]bool{}
	for _, e := range rec.evs {
		switch e.Type {
		case event.ToolStart:
			started[string(e.Data.(event.ToolStartData).Input)] = true
		case event.SubagentUpdate:
			key := strings.TrimPrefix(e.Data.(event.SubagentUpdateData).CurrentTool, "look ")
			if !started[`{"key":"`+key+`"}`] {
				t.Fatalf("progress for %q came before its tool.start", key)
			}
		}
	}
}

func TestTheLeadAndTeammatesReportNoSubAgentProgress(t *testing.T) {
	for _, c := range []struct{ id, parent string }{{"lead", ""}, {"reviewer", "lead"}} {
		p, _ := testkit.Model(t, scenario("look", "b"))
		rec := &recorder{}
		s := New(Config{ID: c.id, ParentID: c.parent, Provider: p, Sink: rec,
			Tools: tools.NewSet(&subjectProbe{probe: probe{name: "look", kind: tools.ReadOnly}})})
		if _, err := s.Run(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		if n := len(rec.of(event.SubagentUpdate)); n != 0 {
			t.Fatalf("%s emitted %d subagent.update events; only an agent started by a task call has a task row to update", c.id, n)
		}
	}
}
