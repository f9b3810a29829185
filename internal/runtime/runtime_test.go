package runtime

import (
	"context"
	"github.com/atomic-agent/atomic/internal/backend/native"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/mcp/mcptest"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestMain(m *testing.M) {
	mcptest.ServeStdio() // when a test starts this binary as an MCP server
	goleak.VerifyTestMain(m, testkit.KnownLeaks()...)
}

type harness struct {
	rt   *Runtime
	mu   sync.Mutex
	evs  []event.Event
	stop func()
}

func (h *harness) events() []event.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]event.Event(nil), h.evs...)
}

func start(t *testing.T, scenario string, cfg Config) *harness {
	t.Helper()
	h, _ := startWith(t, scenario, cfg)
	return h
}

// startWith is start with access to the loopback server.
func startWith(t *testing.T, scenario string, cfg Config) (*harness, *loopback.Server) {
	t.Helper()
	p, srv := testkit.Model(t, scenario)
	if cfg.Gate == nil {
		cfg.Gate, _ = permission.NewGate(permission.Options{Mode: permission.BypassPermissions})
	}
	cfg.Provider = p
	if cfg.Workspace.Root == "" {
		cfg.Workspace = tools.Workspace{Root: t.TempDir()}
	}
	h := &harness{rt: New(cfg)}
	h.rt.Bus().Subscribe(func(e event.Event) {
		h.mu.Lock()
		h.evs = append(h.evs, e)
		h.mu.Unlock()
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.rt.Serve(ctx); close(done) }()
	h.stop = func() { cancel(); <-done; h.rt.Close() }
	t.Cleanup(h.stop)
	return h, srv
}

func (h *harness) await(t *testing.T) Outcome {
	t.Helper()
	select {
	case o := <-h.rt.Completed():
		h.flush(t)
		return o
	case <-time.After(20 * time.Second):
		t.Fatal("the run never completed")
	}
	return Outcome{}
}

// flush waits until the harness's recorder (every subscriber) has every
// event emitted so far: the bus delivers on each subscriber's goroutine.
func (h *harness) flush(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.rt.Bus().Flush(ctx); err != nil {
		t.Fatalf("subscribers never caught up: %v", err)
	}
}

// checkGating replays the events through a fresh reducer and checks that
// every complete came when no agent was active, and exactly once per run.
func checkGating(t *testing.T, evs []event.Event) {
	t.Helper()
	var st lifecycle.State
	completes := 0
	for _, e := range evs {
		st.Apply(e)
		if e.Type == event.Complete {
			completes++
			if !st.Settled() {
				t.Fatalf("complete emitted with %d agents active and %d sessions open", st.Active(), st.Open())
			}
		}
	}
	if completes != 1 {
		t.Fatalf("%d complete events, want 1", completes)
	}
}

func TestLeadIsWokenWithTheBackgroundResultBeforeCompleting(t *testing.T) {
	h := start(t, `
rules:
  - {name: notified, match: {last_user_contains: "bg says hi"}, respond: {text: "final: bg says hi"}}
  - {name: ack, match: {tools_include: [task], has_tool_results: true}, respond: {text: "started"}}
  - name: spawn
    match: {tools_include: [task]}
    respond:
      tool_calls: [{name: task, input: {description: "bg", prompt: "BG", mode: background}}]
  - {name: sub, respond: {text: "bg says hi", delay_ms: 300}}
`, Config{})
	h.rt.Submit("go")
	out := h.await(t)
	if out.Err != nil || out.Result != "final: bg says hi" {
		t.Fatalf("outcome %+v", out)
	}
	checkGating(t, h.events())
}

func TestInterruptEndsEveryAgentInterruptedAndTheRunStillCompletes(t *testing.T) {
	p, srv := testkit.Model(t, `
rules:
  - name: spawn
    match: {tools_include: [task], has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: "bg", prompt: "BG", mode: background}}
        - {name: task, input: {description: "sync", prompt: "SYNC"}}
  - {name: after, match: {tools_include: [task]}, respond: {text: "after"}}
  - {name: sub, respond: {text: "slow", delay_ms: 30000}}
`)
	gate, _ := permission.NewGate(permission.Options{})
	h := &harness{rt: New(Config{Provider: p, Gate: gate, Workspace: tools.Workspace{Root: t.TempDir()}})}
	h.rt.Bus().Subscribe(func(e event.Event) { h.mu.Lock(); h.evs = append(h.evs, e); h.mu.Unlock() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.rt.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done; h.rt.Close() }()

	h.rt.Submit("go")
	testkit.WaitFor(t, 10*time.Second, "both sub-agent requests in flight", func() bool { return srv.InFlight() >= 2 })
	start := time.Now()
	h.rt.Interrupt("test")
	out := h.await(t)
	if time.Since(start) > 3*time.Second {
		t.Fatalf("interrupt took %s", time.Since(start))
	}
	if out.Err == nil || !strings.Contains(out.Err.Error(), "interrupted") {
		t.Fatalf("outcome %+v", out)
	}
	agents := h.rt.Bus().Agents()
	if len(agents) != 2 {
		t.Fatalf("%d agent records, want the background and the sync one: %+v", len(agents), agents)
	}
	for _, r := range agents {
		if r.Status != lifecycle.Interrupted {
			t.Fatalf("%s is %s", r.ID, r.Status)
		}
	}
	// Every session had ended before complete (checkGating: complete only
	// once nothing is open); the task's goroutine closes Done right after
	// announcing its subagent.complete, so it may trail complete by a
	// moment, never by a session.
	for _, task := range h.rt.Manager().Tasks() {
		select {
		case <-task.Done():
		case <-time.After(2 * time.Second):
			t.Fatalf("%s's task still running 2s after complete", task.ID)
		}
	}
	checkGating(t, h.events())
}

func TestLeadFailureInHeadlessModeCancelsSubagentsAndCompletesWithTheError(t *testing.T) {
	h := start(t, `
rules:
  - name: spawn
    match: {tools_include: [task], has_tool_results: false}
    respond:
      tool_calls: [{name: task, input: {description: "bg", prompt: "BG", mode: background}}]
  - {name: broken, match: {tools_include: [task]}, respond: {error: {status: 401, type: authentication_error, message: "invalid x-api-key"}}}
  - {name: sub, respond: {text: "slow", delay_ms: 30000}}
`, Config{CancelOnLeadError: true})
	h.rt.Submit("go")
	out := h.await(t)
	if out.Err == nil || !strings.Contains(out.Err.Error(), "401") {
		t.Fatalf("outcome %+v", out)
	}
	agents := h.rt.Bus().Agents()
	if len(agents) != 1 {
		t.Fatalf("%d agent records, want the one background agent: %+v", len(agents), agents)
	}
	for _, r := range agents {
		if r.Status != lifecycle.Interrupted {
			t.Fatalf("%s is %s", r.ID, r.Status)
		}
	}
	checkGating(t, h.events())
}

func TestResetCancelsBackgroundWorkAndClearsHistory(t *testing.T) {
	h := start(t, `
rules:
  - {name: ack, match: {tools_include: [task], has_tool_results: true}, respond: {text: "started"}}
  - name: spawn
    match: {tools_include: [task]}
    respond:
      tool_calls: [{name: task, input: {description: "bg", prompt: "BG", mode: background}}]
  - {name: sub, respond: {text: "slow", delay_ms: 30000}}
`, Config{})
	h.rt.Submit("go")
	testkit.WaitFor(t, 10*time.Second, "the lead's turn to end with work active", func() bool {
		for _, e := range h.events() {
			if e.Type == event.UsageUpdate && e.AgentID == event.LeadID && e.Data.(event.UsageUpdateData).Active == 1 {
				return true
			}
		}
		return false
	})
	h.rt.Reset("/clear")
	h.await(t)
	if len(h.rt.Lead().(*native.Session).History()) != 0 {
		t.Fatal("history survives /clear")
	}
	if r := h.rt.Bus().Agents()[0]; r.Status != lifecycle.Interrupted {
		t.Fatalf("background agent after /clear: %s", r.Status)
	}
}

func TestARunAndItsSubagentCarryOnWhileOneSubscriberIsStuck(t *testing.T) {
	h := start(t, `
rules:
  - {name: final, match: {tools_include: [task], has_tool_results: true}, respond: {text: "all done"}}
  - {name: fanout, match: {tools_include: [task]}, respond: {tool_calls: [{name: task, input: {description: "look", prompt: "SUB"}}]}}
  - {name: sub, respond: {text: "found"}}
`, Config{})
	release := make(chan struct{})
	entered := make(chan struct{})
	var once sync.Once
	unsubscribe := h.rt.Bus().Subscribe(func(event.Event) {
		once.Do(func() { close(entered) })
		<-release // a view that stopped reading
	})
	defer unsubscribe()
	defer close(release)
	h.rt.Submit("go")
	select {
	case out := <-h.rt.Completed():
		if out.Err != nil || out.Result != "all done" {
			t.Fatalf("outcome %+v", out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run never completed while one subscriber was stuck")
	}
	<-entered
	// The harness's recorder, subscribed before the stuck one, has the
	// whole run although the stuck one has not got past its first event.
	deadline := time.Now().Add(10 * time.Second)
	for {
		evs := h.events()
		if len(evs) > 0 && evs[len(evs)-1].Type == event.Complete {
			var sub bool
			for _, e := range evs {
				sub = sub || e.Type == event.SubagentComplete && e.AgentID == "general-purpose-1"
			}
			if !sub {
				t.Fatalf("the recorder has no subagent.complete: %v", evs)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other subscriber stopped at %d events", len(evs))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st := h.rt.Bus().Agents(); len(st) != 1 || st[0].Status != lifecycle.Completed {
		t.Fatalf("the reducer's state %+v", st)
	}
}

func TestInterruptTurnStopsTheLeadAndItsSyncAgentButTheBackgroundAgentFinishes(t *testing.T) {
	p, srv := testkit.Model(t, `
rules:
  - {name: woken, match: {tools_include: [task], any_user_contains: "bg done"}, respond: {text: "the background agent said bg done"}}
  - name: spawn
    match: {tools_include: [task], has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: "bg", prompt: "BG", mode: background}}
        - {name: task, input: {description: "sync", prompt: "SYNC"}}
  - {name: after, match: {tools_include: [task]}, respond: {text: "after"}}
  - {name: bg, match: {tools_exclude: [task], first_user_contains: BG}, respond: {text: "bg done", delay_ms: 1500}}
  - {name: sync, match: {tools_exclude: [task]}, respond: {text: "slow", delay_ms: 30000}}
`)
	gate, _ := permission.NewGate(permission.Options{})
	h := &harness{rt: New(Config{Provider: p, Gate: gate, Workspace: tools.Workspace{Root: t.TempDir()}})}
	h.rt.Bus().Subscribe(func(e event.Event) { h.mu.Lock(); h.evs = append(h.evs, e); h.mu.Unlock() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.rt.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done; h.rt.Close() }()

	h.rt.Submit("go")
	testkit.WaitFor(t, 10*time.Second, "both sub-agent requests in flight", func() bool { return srv.InFlight() >= 2 })
	h.rt.InterruptTurn("test")
	out := h.await(t)
	if out.Result != "the background agent said bg done" {
		t.Errorf("outcome %+v: want the lead woken by the background agent's result", out)
	}
	status := map[string]lifecycle.Status{}
	for _, r := range h.rt.Bus().Agents() {
		status[r.Name+"/"+map[bool]string{true: "bg", false: "sync"}[r.Background]] = r.Status
	}
	var bg, sync lifecycle.Status
	for k, st := range status {
		if strings.HasSuffix(k, "/bg") {
			bg = st
		} else {
			sync = st
		}
	}
	if len(status) != 2 || bg != lifecycle.Completed || sync != lifecycle.Interrupted {
		t.Fatalf("agents %v: want the background one completed and the sync one interrupted", status)
	}
	checkGating(t, h.events())
}

func TestWithHoldWakesABackgroundResultWaitsForTheNextPromptsTurn(t *testing.T) {
	h, srv := startWith(t, `
rules:
  - {name: next, match: {last_user_contains: "bg says hi"}, respond: {text: "next, and bg says hi"}}
  - {name: ack, match: {tools_include: [task], has_tool_results: true}, respond: {text: "started"}}
  - name: spawn
    match: {tools_include: [task], last_user_contains: "go"}
    respond:
      tool_calls: [{name: task, input: {description: "bg", prompt: "BG", mode: background}}]
  - {name: sub, match: {tools_exclude: [task]}, respond: {text: "bg says hi", delay_ms: 200}}
`, Config{HoldWakes: true})
	h.rt.Submit("go")
	if out := h.await(t); out.Err != nil || out.Result != "started" {
		t.Fatalf("first outcome %+v; want the run settled on the lead's own answer, the background result held", out)
	}
	for _, e := range h.events() {
		if d, ok := event.Payload[event.TurnEndData](e.Data); ok && e.Type == event.TurnEnd && e.AgentID == event.LeadID && d.Woken {
			t.Fatalf("the lead ran a woken turn with no prompt: %+v", e)
		}
	}
	if n := len(loopback.ByRule(srv.Log(), "next")); n != 0 {
		t.Fatalf("%d requests carried the background result before the next prompt", n)
	}
	h.rt.Submit("and now?")
	if out := h.await(t); out.Err != nil || out.Result != "next, and bg says hi" {
		t.Fatalf("second outcome %+v; want the prompt's turn to carry the held result", out)
	}
	got := loopback.ByRule(srv.Log(), "next")
	if len(got) != 1 {
		t.Fatalf("%d requests with the result, want 1", len(got))
	}
	last := got[0].Messages[len(got[0].Messages)-1].Text
	if !strings.Contains(last, "and now?") || !strings.Contains(last, "<task-notification>") {
		t.Errorf("the prompt's message %q should hold the prompt and the task notification", last)
	}
}
