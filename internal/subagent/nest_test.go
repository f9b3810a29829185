package subagent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// statuses is the sequence of statuses agent id's agent.status events
// reported, repeats folded.
func (s *sink) statuses(id string) []lifecycle.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []lifecycle.Status
	for _, e := range s.evs {
		if r, ok := lifecycle.RecordOf(e); ok && r.ID == id && (len(out) == 0 || out[len(out)-1] != r.Status) {
			out = append(out, r.Status)
		}
	}
	return out
}

// record is the last agent.status record of agent id.
func (s *sink) record(id string) lifecycle.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	var last lifecycle.Record
	for _, e := range s.evs {
		if r, ok := lifecycle.RecordOf(e); ok && r.ID == id {
			last = r
		}
	}
	return last
}

func waitDone(t *testing.T, task *Task, within time.Duration) {
	t.Helper()
	select {
	case <-task.Done():
	case <-time.After(within):
		t.Fatalf("%s did not end within %v", task.ID, within)
	}
}

const chain = `
rules:
  - {name: leaf, match: {first_user_contains: L3, tools_exclude: [task]}, respond: {text: "leaf done"}}
  - {name: leaf-with-task, match: {first_user_contains: L3}, respond: {text: "the leaf was offered task"}}
  - {name: mid-report, match: {first_user_contains: L2, has_tool_results: true}, respond: {text: "mid got: leaf done"}}
  - {name: mid, match: {first_user_contains: L2}, respond: {tool_calls: [{name: task, input: {description: "leaf", prompt: "L3"}}]}}
  - {name: top-report, match: {first_user_contains: L1, has_tool_results: true}, respond: {text: "top got: mid got: leaf done"}}
  - {name: top, match: {first_user_contains: L1}, respond: {tool_calls: [{name: task, input: {description: "mid", prompt: "L2"}}]}}
`

func TestASyncChainThreeLevelsDeepFinishesOnASingleSlot(t *testing.T) {
	p, _ := testkit.Model(t, chain)
	s := &sink{}
	m := New(Config{SessionID: "s", Provider: p, Model: "test-model", Sink: s, MaxConcurrent: 1, MaxDepth: 3, Tools: tools.NewSet()})
	t.Cleanup(m.Close)
	top, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: event.LeadID, Prompt: "L1", Description: "top"})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, top, 20*time.Second)
	if r := m.Record(top); r.Status != lifecycle.Completed || r.Result != "top got: mid got: leaf done" {
		t.Fatalf("top: %s %q %q", r.Status, r.Result, r.Error)
	}
	tasks := m.Tasks()
	if len(tasks) != 3 {
		t.Fatalf("%d tasks, want 3 (one per level)", len(tasks))
	}
	for i, want := range []string{event.LeadID, tasks[0].ID, tasks[1].ID} {
		if r := m.Record(tasks[i]); r.ParentID != want || r.Status != lifecycle.Completed {
			t.Fatalf("level %d: %s parent %q (want %q), %s", i+1, r.ID, r.ParentID, want, r.Status)
		}
	}
}

func TestAtTheDepthLimitTheTaskToolIsNotOfferedAndACallIsRefusedSayingWhy(t *testing.T) {
	p, _ := testkit.Model(t, chain)
	s := &sink{}
	m := New(Config{SessionID: "s", Provider: p, Model: "test-model", Sink: s, MaxConcurrent: 2, MaxDepth: 1, Tools: tools.NewSet()})
	t.Cleanup(m.Close)
	leaf, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: event.LeadID, Prompt: "L3", Description: "leaf"})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, leaf, 20*time.Second)
	if r := m.Record(leaf); r.Result != "leaf done" {
		t.Fatalf("the agent at the limit got %q (was it offered task?)", r.Result)
	}
	_, err = NewTaskTool(m).Run(context.Background(), tools.Call{ID: "c2", AgentID: leaf.ID,
		Input: []byte(`{"description":"deeper","prompt":"x"}`)})
	if err == nil || !strings.Contains(err.Error(), "depth limit") || !strings.Contains(err.Error(), leaf.ID) {
		t.Fatalf("a task call from the limit: %v", err)
	}
}

const waiting = `
rules:
  - {name: b, match: {first_user_contains: CHILD}, respond: {text: "b found 42", delay_ms: 400}}
  - {name: a-woken, match: {any_user_contains: "b found 42"}, respond: {text: "a reports: 42"}}
  - {name: a-ends-turn, match: {first_user_contains: PARENT, has_tool_results: true}, respond: {text: "started b, waiting"}}
  - {name: a, match: {first_user_contains: PARENT}, respond: {tool_calls: [{name: task, input: {description: "child", prompt: "CHILD", mode: background}}]}}
  - {name: slow, match: {first_user_contains: SLOWCHILD}, respond: {text: "never", delay_ms: 30000}}
`

func TestABackgroundAgentWaitsForItsOwnChildIsWokenByItsResultAndOnlyThenCompletes(t *testing.T) {
	p, _ := testkit.Model(t, waiting)
	s := &sink{}
	var toLead []string
	m := New(Config{SessionID: "s", Provider: p, Model: "test-model", Sink: s, MaxConcurrent: 1, MaxDepth: 3, Tools: tools.NewSet(),
		OnFinish: func(t *Task, out Outcome) { toLead = append(toLead, t.ID+": "+out.Result) }})
	t.Cleanup(m.Close)
	a, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: event.LeadID, Prompt: "PARENT", Description: "a", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, a, 20*time.Second)
	if r := m.Record(a); r.Status != lifecycle.Completed || r.Result != "a reports: 42" {
		t.Fatalf("a: %s %q %q", r.Status, r.Result, r.Error)
	}
	b := m.Tasks()[1]
	if got := s.statuses(a.ID); !slicesEqual(got, []lifecycle.Status{lifecycle.Background, lifecycle.Waiting, lifecycle.Background, lifecycle.Completed}) {
		t.Fatalf("a went through %v", got)
	}
	if r := s.record(b.ID); r.Status != lifecycle.Completed || r.ParentID != a.ID {
		t.Fatalf("b: %+v", r)
	}
	// Only the lead's own child reaches the lead.
	if len(toLead) != 1 || toLead[0] != a.ID+": a reports: 42" {
		t.Fatalf("the lead was told %q", toLead)
	}
}

func TestCancellingAWaitingAgentInterruptsItsWholeSubtree(t *testing.T) {
	p, _ := testkit.Model(t, strings.ReplaceAll(waiting, "prompt: \"CHILD\"", "prompt: \"SLOWCHILD\""))
	s := &sink{}
	m := New(Config{SessionID: "s", Provider: p, Model: "test-model", Sink: s, MaxConcurrent: 1, MaxDepth: 3, Tools: tools.NewSet()})
	t.Cleanup(m.Close)
	a, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: event.LeadID, Prompt: "PARENT", Description: "a", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for s.record(a.ID).Status != lifecycle.Waiting {
		if time.Now().After(deadline) {
			t.Fatalf("a never waited: %v", s.statuses(a.ID))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := m.Cancel(a.ID); err != nil {
		t.Fatal(err)
	}
	waitDone(t, a, 10*time.Second)
	b := m.Tasks()[1]
	waitDone(t, b, 10*time.Second)
	for _, task := range []*Task{a, b} {
		if r := m.Record(task); r.Status != lifecycle.Interrupted || r.Session != lifecycle.SessionClosed {
			t.Fatalf("%s after the cancel: %s, session %s", task.ID, r.Status, r.Session)
		}
	}
}

func TestASubAgentsCompanionToolsReachOnlyItsOwnChildren(t *testing.T) {
	p, _ := testkit.Model(t, waiting)
	s := &sink{}
	m := New(Config{SessionID: "s", Provider: p, Model: "test-model", Sink: s, MaxConcurrent: 3, MaxDepth: 3, Tools: tools.NewSet()})
	t.Cleanup(m.Close)
	a, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: event.LeadID, Prompt: "PARENT", Description: "a", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	other, err := m.Spawn(context.Background(), Spec{ToolCallID: "c2", ParentID: event.LeadID, Prompt: "SLOWCHILD", Description: "other", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewCheckTask(m).Run(context.Background(), tools.Call{ID: "c3", AgentID: a.ID, Input: []byte(`{"task_id":"` + other.ID + `"}`)})
	if err == nil || !strings.Contains(err.Error(), "unknown task_id") {
		t.Fatalf("a checking its sibling: %v", err)
	}
	if _, err := NewCheckTask(m).Run(context.Background(), tools.Call{ID: "c4", AgentID: event.LeadID, Input: []byte(`{"task_id":"` + other.ID + `"}`)}); err != nil {
		t.Fatalf("the lead checking its own task: %v", err)
	}
	waitDone(t, a, 20*time.Second)
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
