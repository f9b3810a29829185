package subagent

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// The task tool says when a sync agent's wait no longer blocks: once the
// agent has ended, never before; a background task's at once.
func TestTheTaskToolSaysItsCallIsReadyWhenTheAgentHasEnded(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m := newManager(t, p, 5, &sink{})
	tool := NewTaskTool(m)
	ready := make(chan struct{}, 2)
	wait, err := tool.StartNotify(context.Background(), tools.Call{ID: "c1", AgentID: "lead",
		Input: json.RawMessage(`{"description":"d","prompt":"work"}`)}, func() { ready <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	task := m.Tasks()[0]
	select {
	case <-ready:
		t.Fatal("ready before the agent answered")
	case <-time.After(20 * time.Millisecond): // the model answers after 50 ms
	}
	select {
	case <-ready:
	case <-time.After(5 * time.Second):
		t.Fatal("never ready")
	}
	select {
	case <-task.Done():
	default:
		t.Fatal("ready before the agent ended")
	}
	if r, err := wait(); err != nil || r.Content != "done: task finished" {
		t.Fatalf("wait after ready: %+v, %v", r, err)
	}
	if len(ready) != 0 {
		t.Fatal("ready was called twice")
	}

	_, err = tool.StartNotify(context.Background(), tools.Call{ID: "c2", AgentID: "lead",
		Input: json.RawMessage(`{"description":"d","prompt":"SLOW","mode":"background"}`)}, func() { ready <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ready:
	default:
		t.Fatal("a background task's call was not ready at once")
	}
}

func TestAWaiterAddedAfterTheAgentEndedIsCalledAtOnce(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m := newManager(t, p, 5, &sink{})
	task, err := m.Spawn(context.Background(), Spec{Prompt: "A", Description: "a"})
	if err != nil {
		t.Fatal(err)
	}
	<-task.Done()
	called := false
	task.whenDone(func() { called = true })
	if !called {
		t.Fatal("a waiter added after the end was never called")
	}
}
