package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/backend/native"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/subagent"
	"github.com/atomic-agent/atomic/internal/team"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// cancelRecorder is a CLI lead's session that records which of its
// sub-agents it was asked to stop, and refuses when told to.
type cancelRecorder struct {
	backend.Session
	testkit.Cancels
}

// cliLead opens a runtime whose lead is "an external CLI" (the native loop
// on the loopback model behind rec); sink is the sink its session was
// given, through which it announces its own sub-agents.
func cliLead(t *testing.T, scenario string, rec *cancelRecorder) (r *Runtime, sink event.Sink, serve func()) {
	t.Helper()
	p, _ := testkit.Model(t, scenario)
	gate, _ := permission.NewGate(permission.Options{Mode: permission.BypassPermissions})
	r, err := Open(Config{Provider: p, Gate: gate, Workspace: tools.Workspace{Root: t.TempDir()},
		NewLead: func(c backend.Config) (backend.Session, error) {
			sink = c.Sink
			rec.Session = native.New(native.Config{SessionID: c.SessionID, ID: c.AgentID, Provider: p, Sink: c.Sink})
			return rec, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var served sync.WaitGroup
	t.Cleanup(func() { cancel(); served.Wait(); r.Close() })
	return r, sink, func() { served.Go(func() { r.Serve(ctx) }) }
}

func childEvent(typ event.Type, id string, data any) event.Event {
	return event.Event{Type: typ, Time: time.Now(), SessionID: "s/" + id, AgentID: id, ParentAgentID: event.LeadID, Data: data}
}

func startChild(sink event.Sink, id string) {
	sink.Emit(childEvent(event.SubagentStart, id, event.SubagentStartData{AgentType: "general-purpose", Background: true, Backend: "cli"}))
}

func endChild(sink event.Sink, id string) {
	sink.Emit(childEvent(event.SubagentComplete, id, event.SubagentCompleteData{Success: true, Result: "child done"}))
}

func TestTasksCancelOfACLILeadsSubagentReachesTheLeadsSessionAndReportsItsRefusal(t *testing.T) {
	rec := &cancelRecorder{}
	r, sink, _ := cliLead(t, "rules:\n  - {name: hi, respond: {text: hi}}\n", rec)
	startChild(sink, "general-purpose-1")
	rec.Refuse(errors.New("the CLI lost track of it"))
	err := r.CancelTask("general-purpose-1")
	if err == nil || !strings.Contains(err.Error(), "the CLI lost track of it") || !strings.Contains(err.Error(), "general-purpose-1") {
		t.Fatalf("CancelTask with a refusing CLI = %v, want its error naming the agent", err)
	}
	rec.Refuse(nil)
	if err := r.CancelTask("general-purpose-1"); err != nil {
		t.Fatal(err)
	}
	if got := rec.Asked(); len(got) != 2 || got[0] != "general-purpose-1" || got[1] != "general-purpose-1" {
		t.Fatalf("the lead's session was asked to stop %v, want general-purpose-1 twice", got)
	}
	if err := r.CancelTask("nobody-9"); err == nil || !strings.Contains(err.Error(), `unknown agent "nobody-9"; known agents: general-purpose-1`) {
		t.Fatalf("CancelTask of an unknown id = %v, want it to name the known ids", err)
	}
	endChild(sink, "general-purpose-1")
}

func TestAnInterruptStopsEachActiveSubagentOfACLILeadThroughItsSession(t *testing.T) {
	rec := &cancelRecorder{}
	r, sink, _ := cliLead(t, "rules:\n  - {name: hi, respond: {text: hi}}\n", rec)
	for _, id := range []string{"explore-1", "explore-2", "explore-3"} {
		startChild(sink, id)
	}
	endChild(sink, "explore-2")
	rec.Refuse(errors.New("already stopping")) // a refusal stops no other cancel
	r.Interrupt("Esc")
	if got := rec.Asked(); len(got) != 2 || got[0] != "explore-1" || got[1] != "explore-3" {
		t.Fatalf("the interrupt asked the lead's session to stop %v, want the active explore-1 and explore-3", got)
	}
	endChild(sink, "explore-1")
	endChild(sink, "explore-3")
}

func TestTheRunDoesNotCompleteWhileASubagentTheCLILeadStartedRuns(t *testing.T) {
	rec := &cancelRecorder{}
	r, sink, serve := cliLead(t, "rules:\n  - {name: hi, respond: {text: done for now}}\n", rec)
	serve()
	startChild(sink, "general-purpose-1")
	r.Submit("hi")
	select {
	case out := <-r.Completed():
		t.Fatalf("completed (%q) while general-purpose-1 runs", out.Result)
	case <-time.After(500 * time.Millisecond):
	}
	if !r.bus.Holds("general-purpose-1") {
		t.Fatal("the running sub-agent does not hold the run")
	}
	endChild(sink, "general-purpose-1")
	select {
	case out := <-r.Completed():
		if out.Err != nil || out.Result != "done for now" {
			t.Fatalf("outcome %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("never completed after the sub-agent ended")
	}
}

func TestCancelTaskStopsATeammateThroughTheTeamManager(t *testing.T) {
	h := start(t, `
rules:
  - {name: mate, match: {first_user_contains: SLOWMATE}, respond: {text: "never", delay_ms: 20000}}
  - {name: any, respond: {text: ok}}
`, Config{})
	if err := h.rt.Team().Create("crew"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.Team().Spawn(team.SpawnSpec{Name: "ana", Prompt: "SLOWMATE survey"}); err != nil {
		t.Fatal(err)
	}
	id := team.AgentID("ana")
	testkit.WaitFor(t, 10*time.Second, "ana working", func() bool {
		m, ok := h.rt.Bus().Teammate("ana")
		return ok && m.Status == lifecycle.MateWorking
	})
	in, _ := json.Marshal(map[string]string{"task_id": id})
	res, err := subagent.NewCancelTask(h.rt.Manager()).Run(context.Background(), tools.Call{ID: "c", Input: in})
	if err != nil || res.Content != "Task "+id+" cancelled." {
		t.Fatalf("cancel_task = %q, %v", res.Content, err)
	}
	if m, _ := h.rt.Bus().Teammate("ana"); m.Status != lifecycle.MateInterrupted {
		t.Fatalf("ana is %s after cancel_task, want interrupted (stopped mid-turn)", m.Status)
	}
	if r, _ := subagent.NewCancelTask(h.rt.Manager()).Run(context.Background(), tools.Call{ID: "c2", Input: in}); !strings.Contains(r.Content, "already finished") {
		t.Fatalf("a second cancel_task = %q, want already finished", r.Content)
	}
}
