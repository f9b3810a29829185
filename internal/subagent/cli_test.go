package subagent

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/backend/native"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// opened records what the factory was asked for.
type opened struct {
	mu    sync.Mutex
	names []string
	cfgs  []backend.Config
}

// elsewhere is a factory whose "other backend" is Atomic's own loop on
// the loopback model, with a private meter: whatever reaches the run's
// meter got there through the manager, as an external CLI's usage does.
// started, when set, runs once the session exists (a CLI's own events).
func elsewhere(p provider.Provider, o *opened, started func(backend.Config)) backend.Factory {
	return func(name string, cfg backend.Config) (backend.Session, error) {
		o.mu.Lock()
		o.names, o.cfgs = append(o.names, name), append(o.cfgs, cfg)
		o.mu.Unlock()
		s := native.New(native.Config{SessionID: cfg.SessionID, ID: cfg.AgentID, ParentID: cfg.ParentID,
			Provider: p, Model: "other-model", Sink: cfg.Sink})
		if started != nil {
			started(cfg)
		}
		return s, nil
	}
}

func mixedManager(t *testing.T, p provider.Provider, f backend.Factory) (*Manager, *bus.Bus, *sink) {
	t.Helper()
	b := bus.New()
	rec := &sink{of: b}
	t.Cleanup(b.Subscribe(rec.Emit))
	types := spawn.NewRegistry(spawn.Type{Name: "outsider", Description: "runs elsewhere", Backend: "elsewhere",
		Prompt: "OUTSIDER-INSTRUCTIONS", Source: "outsider.md"})
	m := New(Config{SessionID: "s", Provider: p, Model: "lead-model", Types: types, Sink: b, Tools: tools.NewSet(),
		Workspace: "/work/space", Backends: f})
	t.Cleanup(m.Close)
	return m, b, rec
}

func (s *sink) events() []event.Event {
	if s.of != nil {
		_ = s.of.Flush(context.Background())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]event.Event(nil), s.evs...)
}

func TestAnAgentTypeOnAnotherBackendRunsInAFreshSessionOfThatBackend(t *testing.T) {
	p, srv := testkit.Model(t, answers)
	o := &opened{}
	m, b, evs := mixedManager(t, p, elsewhere(p, o, nil))
	task, err := m.Spawn(context.Background(), Spec{ToolCallID: "call-1", ParentID: "lead", Description: "d", Prompt: "THE-TASK", Type: "outsider"})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := m.Wait(context.Background(), task)
	if rec.Status != lifecycle.Completed || rec.Result != "done: task finished" || rec.Backend != "elsewhere" {
		t.Fatalf("record = %+v, want completed on backend elsewhere with the session's answer", rec)
	}
	if len(o.names) != 1 || o.names[0] != "elsewhere" {
		t.Fatalf("factory asked for %v, want one session of elsewhere", o.names)
	}
	cfg := o.cfgs[0]
	if cfg.AgentID != "outsider-1" || cfg.ParentID != "lead" || cfg.SessionID != "s/outsider-1" || cfg.Workspace != "/work/space" {
		t.Errorf("session config = %+v", cfg)
	}
	// The type's model is the CLI's business: the lead's is not forced on it.
	if cfg.Model != "" {
		t.Errorf("model %q passed to another backend, want none (its file names none)", cfg.Model)
	}
	// Only the task prompt reaches the session, after the type's own
	// instructions: not the lead's conversation.
	log := srv.Log()
	if len(log) != 1 {
		t.Fatalf("%d model requests, want 1", len(log))
	}
	var sawStart bool
	for _, e := range evs.events() {
		if e.Type == event.SubagentStart && e.AgentID == "outsider-1" {
			d := e.Data.(event.SubagentStartData)
			sawStart = d.Backend == "elsewhere"
		}
	}
	if !sawStart {
		t.Error("subagent.start does not name the backend")
	}
	// Its usage is counted once, by the bus's reducer, and the run's
	// total is it.
	if got := b.TotalUsage(); got.InputTokens == 0 || got != rec.Usage {
		t.Errorf("run total %+v, want the sub-agent's usage %+v", got, rec.Usage)
	}
}

func TestAnAgentTypeOnAnotherBackendFailsClearlyWhenTheRunCannotStartIt(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m, _, _ := mixedManager(t, p, nil)
	task, err := m.Spawn(context.Background(), Spec{ToolCallID: "c", ParentID: "lead", Prompt: "x", Type: "outsider"})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := m.Wait(context.Background(), task)
	if rec.Status != lifecycle.Error || !strings.Contains(rec.Error, "outsider (outsider.md) runs on the elsewhere backend") {
		t.Fatalf("record = %+v, want an error naming the type, its file and the backend", rec)
	}
}

func TestASubagentOnAnotherBackendEndsOnlyAfterItsOwnSubagents(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	o := &opened{}
	var childDone time.Time
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	// The CLI starts a background sub-agent of its own (named by the
	// tree's namer) that ends 300 ms after the CLI's first answer.
	started := func(cfg backend.Config) {
		id := cfg.NameAgent("general-purpose")
		cfg.Sink.Emit(event.Event{Type: event.SubagentStart, Time: time.Now(), SessionID: cfg.SessionID + "/" + id,
			AgentID: id, ParentAgentID: cfg.AgentID, Data: event.SubagentStartData{AgentType: "general-purpose", Background: true, Backend: "elsewhere"}})
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(300 * time.Millisecond)
			childDone = time.Now()
			cfg.Sink.Emit(event.Event{Type: event.SubagentComplete, Time: childDone, SessionID: cfg.SessionID + "/" + id,
				AgentID: id, ParentAgentID: cfg.AgentID, Data: event.SubagentCompleteData{Success: true, Result: "child done"}})
		}()
	}
	m, b, evs := mixedManager(t, p, elsewhere(p, o, started))
	ex, err := m.Spawn(context.Background(), Spec{ToolCallID: "c0", ParentID: "lead", Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	m.Wait(context.Background(), ex)
	task, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: "lead", Prompt: "x", Type: "outsider"})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := m.Wait(context.Background(), task)
	if rec.Status != lifecycle.Completed {
		t.Fatalf("record = %+v", rec)
	}
	child, ok := b.Agent("general-purpose-2")
	if !ok || child.ParentID != "outsider-1" || child.Status != lifecycle.Completed {
		t.Fatalf("the CLI's own sub-agent = %+v (found %v), want general-purpose-2 under outsider-1, completed: one namer for the tree", child, ok)
	}
	var end time.Time
	for _, e := range evs.events() {
		if e.Type == event.SubagentComplete && e.AgentID == "outsider-1" {
			end = e.Time
		}
	}
	if end.Before(childDone) {
		t.Errorf("outsider-1 ended at %v, before its own sub-agent at %v", end, childDone)
	}
}
