package runtime

import (
	"context"
	"errors"
	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/backend/native"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// awaitResult waits for the run to settle with result want.
func (h *harness) awaitResult(t *testing.T, want string) Outcome {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case o := <-h.rt.Completed():
			if o.Result == want {
				h.flush(t)
				return o
			}
		case <-deadline:
			t.Fatalf("the run never completed with %q", want)
		}
	}
}

func TestABackgroundResultReadWithWaitForTaskIsNotRepeatedByTheWakeUp(t *testing.T) {
	h, srv := startWith(t, `
rules:
  - {name: repeated, match: {any_user_contains: "task-notification"}, respond: {text: "told twice"}}
  - {name: waited, match: {tool_result_contains: "Result:"}, respond: {text: "done once"}}
  - name: wait
    match: {tool_result_contains: "Started background task"}
    respond:
      tool_calls: [{name: wait_for_task, input: {task_id: general-purpose-1}}]
  - name: spawn
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls: [{name: task, input: {description: "bg", prompt: "BG", mode: background}}]
  - {name: sub, respond: {text: "bg result", delay_ms: 300}}
`, Config{})
	h.rt.Submit("go")
	out := h.awaitResult(t, "done once")
	if out.Err != nil {
		t.Fatalf("outcome %+v", out)
	}
	if h.rt.Lead().Pending() {
		t.Fatal("a notification of a result already read is still queued for the lead")
	}
	for _, e := range srv.Log() {
		if e.Rule == "repeated" {
			t.Fatalf("request %d repeated a result the lead had read with wait_for_task", e.Seq)
		}
	}
	checkGating(t, h.events())
}

func TestClearDuringATurnCancelsItAndTheNextPromptStartsAFreshValidHistory(t *testing.T) {
	h, srv := startWith(t, `
rules:
  - {name: fresh, match: {last_user_contains: "second"}, respond: {text: "fresh"}}
  - {name: slow, match: {last_user_contains: "first"}, respond: {text: "old", delay_ms: 30000}}
`, Config{})
	h.rt.Submit("first")
	testkit.WaitFor(t, 10*time.Second, "the first turn's request in flight", func() bool { return srv.InFlight() == 1 })
	h.rt.Reset("/clear")
	h.rt.Submit("second")
	h.awaitResult(t, "fresh")
	var fresh *loopback.LogEntry
	for _, e := range srv.Log() {
		if e.Rule == "fresh" {
			fresh = &e
		}
	}
	if fresh == nil || len(fresh.Messages) != 1 || fresh.Messages[0].Text != "second" {
		t.Fatalf("the request after /clear is not a fresh history with just the new prompt: %+v", fresh)
	}
	if hist := h.rt.Lead().(*native.Session).History(); len(hist) != 2 {
		t.Fatalf("history after /clear and one answer has %d messages, want 2", len(hist))
	}
}

func TestClearDuringATurnWokenByABackgroundTaskCancelsIt(t *testing.T) {
	h, srv := startWith(t, `
rules:
  - {name: fresh, match: {last_user_contains: "second"}, respond: {text: "fresh"}}
  - {name: woken, match: {any_user_contains: "task-notification"}, respond: {text: "late", delay_ms: 30000}}
  - {name: ack, match: {tool_result_contains: "Started background task"}, respond: {text: "started"}}
  - name: spawn
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls: [{name: task, input: {description: "bg", prompt: "BG", mode: background}}]
  - {name: sub, respond: {text: "bg done", delay_ms: 100}}
`, Config{})
	h.rt.Submit("first")
	testkit.WaitFor(t, 10*time.Second, "the woken turn's request in flight", func() bool {
		done := map[string]bool{}
		for _, e := range srv.Log() {
			if !e.End.IsZero() {
				done[e.Rule] = true
			}
		}
		return done["sub"] && done["ack"] && srv.InFlight() == 1
	})
	h.rt.Reset("/clear")
	h.rt.Submit("second")
	h.awaitResult(t, "fresh")
	for _, e := range srv.Log() {
		if e.Rule == "fresh" && (len(e.Messages) != 1 || !strings.Contains(e.Messages[0].Text, "second")) {
			t.Fatalf("the request after /clear carries the old conversation: %+v", e.Messages)
		}
	}
}

func TestAnInterruptBeforeTheTurnBeginsCancelsThatTurn(t *testing.T) {
	h, srv := startWith(t, `
rules:
  - {name: slow, respond: {text: "answered anyway", delay_ms: 30000}}
`, Config{})
	h.rt.Submit("go")
	h.rt.Interrupt("SIGINT")
	out := h.await(t)
	if out.Err == nil || !strings.Contains(out.Err.Error(), "interrupted") {
		t.Fatalf("outcome %+v, want interrupted", out)
	}
	if n := len(srv.Log()) + srv.InFlight(); n > 1 {
		t.Fatalf("%d requests after an interrupt that came before the turn", n)
	}
}

func TestALeadOnAnotherBackendRunsBehindTheSameSeam(t *testing.T) {
	p, _ := testkit.Model(t, "rules:\n  - {name: hi, respond: {text: \"hello from the seam\"}}\n")
	gate, _ := permission.NewGate(permission.Options{Mode: permission.BypassPermissions})
	var got backend.Config
	r, err := Open(Config{Provider: p, Gate: gate, Workspace: tools.Workspace{Root: t.TempDir()},
		NewLead: func(c backend.Config) (backend.Session, error) {
			got = c
			return native.New(native.Config{SessionID: c.SessionID, ID: c.AgentID, Provider: p, Sink: c.Sink}), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if got.AgentID != event.LeadID || got.SessionID != r.SessionID() || got.Sink == nil || got.Gate != gate {
		t.Fatalf("the backend was built from %+v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done; r.Close() }()
	r.Submit("hi")
	select {
	case out := <-r.Completed():
		if out.Err != nil || out.Result != "hello from the seam" {
			t.Fatalf("outcome %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("never completed")
	}
}

func TestOpenReportsABackendThatCannotStartAndLeavesNothingRunning(t *testing.T) {
	p, _ := testkit.Model(t, "rules:\n  - {name: hi, respond: {text: hi}}\n")
	_, err := Open(Config{Provider: p, Workspace: tools.Workspace{Root: t.TempDir()},
		NewLead: func(backend.Config) (backend.Session, error) {
			return nil, errors.New("claude-code backend: claude not found")
		}})
	if err == nil || !strings.Contains(err.Error(), "claude not found") {
		t.Fatalf("Open = %v, want the backend's error", err)
	}
}

// A lead whose backend cannot stop one of its own sub-agents (no
// backend.AgentCanceller) gets a /tasks cancel of such an agent refused
// with an error that names the agent and says Esc stops them all, not the
// native manager's "unknown task_id".
func TestCancellingASubagentOfALeadThatCannotStopOneSaysWhyAndNamesIt(t *testing.T) {
	p, _ := testkit.Model(t, "rules:\n  - {name: hi, respond: {text: hi}}\n")
	var sink event.Sink
	r, err := Open(Config{Provider: p, Workspace: tools.Workspace{Root: t.TempDir()},
		NewLead: func(c backend.Config) (backend.Session, error) {
			sink = c.Sink
			return native.New(native.Config{SessionID: c.SessionID, ID: c.AgentID, Provider: p, Sink: c.Sink}), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The lead's CLI announces its sub-agent through its session's sink.
	sink.Emit(event.Event{Type: event.SubagentStart, SessionID: r.SessionID() + "/general-purpose-2",
		AgentID: "general-purpose-2", ParentAgentID: event.LeadID, ToolCallID: "call-2",
		Data: event.SubagentStartData{AgentType: "general-purpose", Description: "slow", Background: true}})
	err = r.CancelTask("general-purpose-2")
	if err == nil || !strings.Contains(err.Error(), "general-purpose-2") || !strings.Contains(err.Error(), "Esc") ||
		strings.Contains(err.Error(), "unknown task_id") {
		t.Fatalf("CancelTask = %v, want an error naming the agent and Esc", err)
	}
	if err := r.CancelTask("nobody-9"); err == nil || !strings.Contains(err.Error(), "nobody-9") {
		t.Fatalf("CancelTask of an unknown id = %v, want an error naming it", err)
	}
}
