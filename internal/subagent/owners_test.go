package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/backend/native"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// cancelTask runs cancel_task on id.
func cancelTask(m *Manager, id string) (string, error) {
	in, _ := json.Marshal(map[string]string{"task_id": id})
	res, err := NewCancelTask(m).Run(context.Background(), tools.Call{ID: "cancel", Input: in})
	return res.Content, err
}

// cancelRecorder is an external CLI's session that records which of its
// sub-agents it was asked to stop, and refuses when told to.
type cancelRecorder struct {
	backend.Session
	testkit.Cancels
}

func TestCancelTaskStopsALocalSubagentThroughTheManager(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m := newManager(t, p, 2, &sink{})
	task, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: "lead", Prompt: "SLOW", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	if o, err := m.cfg.Owners.Lookup(task.ID); err != nil || o.Kind != bus.OwnerSubagents {
		t.Fatalf("owner of %s = %v (%v), want the sub-agent manager", task.ID, o, err)
	}
	got, err := cancelTask(m, task.ID)
	if err != nil || got != "Task "+task.ID+" cancelled." {
		t.Fatalf("cancel_task = %q, %v", got, err)
	}
	if r := m.Record(task); r.Status != lifecycle.Interrupted {
		t.Fatalf("%s is %s after cancel_task, want interrupted", task.ID, r.Status)
	}
	if got, err := cancelTask(m, task.ID); err != nil || !strings.Contains(got, "already finished (cancelled)") {
		t.Fatalf("a second cancel_task = %q, %v, want already finished", got, err)
	}
}

func TestCancelTaskOfAnUnknownIDNamesTheKnownAgents(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m := newManager(t, p, 2, &sink{})
	if _, err := cancelTask(m, "nope-1"); err == nil || !strings.Contains(err.Error(), `unknown agent "nope-1"`) ||
		!strings.Contains(err.Error(), "no agent") {
		t.Fatalf("cancel_task before any agent = %v, want unknown, none started", err)
	}
	for _, call := range []string{"c1", "c2"} {
		task, err := m.Spawn(context.Background(), Spec{ToolCallID: call, ParentID: "lead", Prompt: "quick"})
		if err != nil {
			t.Fatal(err)
		}
		m.Wait(context.Background(), task)
	}
	_, err := cancelTask(m, "nope-1")
	if err == nil || !strings.Contains(err.Error(), `unknown agent "nope-1"; known agents: general-purpose-1, general-purpose-2`) {
		t.Fatalf("cancel_task of an unknown id = %v, want it to name the known ids", err)
	}
}

// cliWithChild is a factory whose "external CLI" is the loopback-backed
// native loop wrapped in rec; once its session exists it announces a
// background sub-agent of its own (named by the tree's namer) through
// its sink, which it sends on children.
func cliWithChild(p provider.Provider, rec *cancelRecorder, withCanceller bool, children chan<- backend.Config) backend.Factory {
	return func(name string, cfg backend.Config) (backend.Session, error) {
		s := native.New(native.Config{SessionID: cfg.SessionID, ID: cfg.AgentID, ParentID: cfg.ParentID, Provider: p, Sink: cfg.Sink})
		id := cfg.NameAgent("general-purpose")
		cfg.Sink.Emit(event.Event{Type: event.SubagentStart, Time: time.Now(), SessionID: cfg.SessionID + "/" + id,
			AgentID: id, ParentAgentID: cfg.AgentID, Data: event.SubagentStartData{AgentType: "general-purpose", Background: true, Backend: name}})
		children <- cfg
		if !withCanceller {
			return s, nil
		}
		rec.Session = s
		return rec, nil
	}
}

// holdsSession waits until the manager holds task's CLI session: the fake CLI
// announces its sub-agent inside Open, before the manager has the session
// it returns (a real CLI announces one only once prompted).
func holdsSession(t *testing.T, task *Task) {
	t.Helper()
	testkit.WaitFor(t, 10*time.Second, "the manager holding the CLI session", func() bool { return task.cli.Load() != nil })
}

// endChild reports the CLI's sub-agent ended, as the CLI does after it
// stopped it.
func endChild(cfg backend.Config, id string) {
	cfg.Sink.Emit(event.Event{Type: event.SubagentComplete, Time: time.Now(), SessionID: cfg.SessionID + "/" + id,
		AgentID: id, ParentAgentID: cfg.AgentID, Data: event.SubagentCompleteData{Cancelled: true, Error: "cancelled"}})
}

func TestCancelTaskStopsACLISubagentsOwnSubagentThroughThatCLIsSession(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	rec := &cancelRecorder{}
	children := make(chan backend.Config, 1)
	m, b, _ := mixedManager(t, p, cliWithChild(p, rec, true, children))
	task, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: "lead", Prompt: "x", Type: "outsider"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := <-children
	holdsSession(t, task)
	const child = "general-purpose-1"
	if o, err := m.cfg.Owners.Lookup(child); err != nil || o.Kind != bus.OwnerCLI || o.By != task.ID {
		t.Fatalf("owner of %s = %v (%v), want the CLI session of %s", child, o, err, task.ID)
	}
	// The CLI refuses: cancel_task says so, naming who runs the agent.
	rec.Refuse(errors.New("the CLI lost track of it"))
	if _, err := cancelTask(m, child); err == nil || !strings.Contains(err.Error(), "the CLI lost track of it") ||
		!strings.Contains(err.Error(), "external CLI session of "+task.ID) {
		t.Fatalf("cancel_task with a failing CLI = %v, want its error and the owner", err)
	}
	rec.Refuse(nil)
	got, err := cancelTask(m, child)
	if err != nil || !strings.Contains(got, "external CLI session of "+task.ID+" was told to stop it") {
		t.Fatalf("cancel_task = %q, %v", got, err)
	}
	if ids := rec.Asked(); len(ids) != 2 || ids[0] != child || ids[1] != child {
		t.Fatalf("the CLI session was asked to stop %v, want %s twice", ids, child)
	}
	// Its parent, the manager's task, was not touched.
	if r := m.Record(task); r.Status.Terminal() {
		t.Fatalf("%s is %s: cancelling its sub-agent stopped it", task.ID, r.Status)
	}
	endChild(cfg, child)
	if r, _ := m.Wait(context.Background(), task); r.Status != lifecycle.Completed {
		t.Fatalf("%s ended %s, want completed once its sub-agent ended", task.ID, r.Status)
	}
	if r, _ := b.Agent(child); r.Status != lifecycle.Interrupted {
		t.Fatalf("%s is %s, want interrupted", child, r.Status)
	}
}

func TestCancelTaskOfASubagentOfACLIThatCannotStopOneAloneSaysWhy(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	children := make(chan backend.Config, 1)
	m, _, _ := mixedManager(t, p, cliWithChild(p, nil, false, children))
	task, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: "lead", Prompt: "x", Type: "outsider"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := <-children
	holdsSession(t, task)
	_, err = cancelTask(m, "general-purpose-1")
	if err == nil || !strings.Contains(err.Error(), task.ID+" runs on the elsewhere backend, which cannot stop one of its sub-agents alone") {
		t.Fatalf("cancel_task = %v, want why it cannot", err)
	}
	endChild(cfg, "general-purpose-1")
	m.Wait(context.Background(), task)
}

func TestCancelTaskStopsARemoteTaskOnItsWorker(t *testing.T) {
	w := newNATSWorld(t)
	h := w.worker(t, "w1", 1)
	b := bus.New()
	m := New(Config{SessionID: "s", Sink: b, Tools: tools.NewSet(), Remote: w.d})
	t.Cleanup(m.Close)
	task := spawnCall(t, m, 1)
	if o, err := m.cfg.Owners.Lookup(task.ID); err != nil || o.Kind != bus.OwnerRemote {
		t.Fatalf("owner of %s = %v (%v), want a NATS worker", task.ID, o, err)
	}
	testkit.WaitFor(t, 20*time.Second, "the task running on w1", func() bool {
		running, _ := h.counts()
		return running == 1 && statusOf(m, task) == lifecycle.Running
	})
	got, err := cancelTask(m, task.ID)
	if err != nil || got != "Task "+task.ID+" cancelled." {
		t.Fatalf("cancel_task = %q, %v", got, err)
	}
	if r := m.Record(task); r.Status != lifecycle.Interrupted || r.Worker != "w1" {
		t.Fatalf("%s is %s on %q, want interrupted on w1", task.ID, r.Status, r.Worker)
	}
	// The worker's run of it was cancelled, not left to finish.
	testkit.WaitFor(t, 10*time.Second, "the worker to stop the task", func() bool {
		running, ran := h.counts()
		return running == 0 && ran == 1
	})
}
