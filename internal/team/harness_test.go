package team_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/anthropic"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/team"
	"github.com/atomic-agent/atomic/internal/tools"
)

const (
	model      = "claude-sonnet-4-5-20250929"
	leadSystem = "You are Atomic, a terminal coding agent"
)

// harness runs the real runtime against a scripted loopback model.
type harness struct {
	t   *testing.T
	srv *loopback.Server
	rt  *runtime.Runtime

	mu     sync.Mutex
	events []event.Event

	stop   context.CancelFunc
	served chan struct{}
	closed bool
}

// newRuntime builds the real runtime over a loopback model serving rules;
// the server and its client's connections close with the test. opts
// change its config.
func newRuntime(t *testing.T, rules []loopback.Rule, maxTeammates int, opts ...func(*runtime.Config)) (*runtime.Runtime, *loopback.Server) {
	t.Helper()
	srv := loopback.New(&loopback.Scenario{Rules: rules})
	if err := srv.Start(); err != nil {
		t.Fatalf("loopback: %v", err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("loopback close: %v", err)
		}
		tr.CloseIdleConnections()
	})
	prov, err := anthropic.New(anthropic.Config{
		APIKey: "test-key", BaseURL: srv.URL(), Model: model, HTTPClient: &http.Client{Transport: tr},
		Retry: provider.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxTotal: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := runtime.Config{Provider: prov, Model: model, Workspace: tools.Workspace{Root: t.TempDir()},
		Teams: true, MaxTeammates: maxTeammates, MaxTurns: 20}
	for _, o := range opts {
		o(&cfg)
	}
	return runtime.New(cfg), srv
}

// start serves a new runtime for the length of the test, recording its
// events.
func start(t *testing.T, rules []loopback.Rule, maxTeammates int, opts ...func(*runtime.Config)) *harness {
	t.Helper()
	rt, srv := newRuntime(t, rules, maxTeammates, opts...)
	h := &harness{t: t, srv: srv, rt: rt, served: make(chan struct{})}
	h.rt.Bus().Subscribe(func(e event.Event) {
		h.mu.Lock()
		h.events = append(h.events, e)
		h.mu.Unlock()
	})
	ctx, stop := context.WithCancel(context.Background())
	h.stop = stop
	go func() {
		defer close(h.served)
		_ = h.rt.Serve(ctx)
	}()
	t.Cleanup(h.close)
	return h
}

// close stops the runtime and every teammate (the server closes in its
// own cleanup, after this one).
func (h *harness) close() {
	if h.closed {
		return
	}
	h.closed = true
	h.stop()
	<-h.served
	h.rt.Close()
}

func (h *harness) Events() []event.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]event.Event(nil), h.events...)
}

// complete waits for the run's Outcome.
func (h *harness) complete(within time.Duration) runtime.Outcome {
	h.t.Helper()
	select {
	case out := <-h.rt.Completed():
		// The bus delivers on the recorder's own goroutine: wait until it
		// has everything up to complete.
		if err := h.rt.Bus().Flush(context.Background()); err != nil {
			h.t.Fatal(err)
		}
		return out
	case <-time.After(within):
		h.t.Fatalf("no complete within %s; teammates %+v\nevents:\n%s\nserver log:\n%s",
			within, h.rt.Team().Teammates(), h.dump(), h.dumpLog())
		return runtime.Outcome{}
	}
}

// waitFor polls cond until it holds.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; events:\n%s", what, h.dump())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *harness) dump() string {
	var b strings.Builder
	for i, e := range h.Events() {
		if e.Type == event.MessageDelta {
			continue
		}
		fmt.Fprintf(&b, "%3d %-18s %-10s %+v\n", i, e.Type, e.AgentID, e.Data)
	}
	return b.String()
}

func (h *harness) dumpLog() string {
	var b strings.Builder
	for _, e := range h.srv.Log() {
		fmt.Fprintf(&b, "%3d %-14s %s %q\n", e.Seq, e.Rule, e.Outcome, clip(e.LastUserText(), 120))
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// statuses lists the teammate.status events as "name:status".
func statuses(evs []event.Event) []string {
	var out []string
	for _, e := range evs {
		if d, ok := e.Data.(event.TeammateStatusData); ok && e.Type == event.TeammateStatus {
			out = append(out, d.Name+":"+d.Status)
		}
	}
	return out
}

func index(evs []event.Event, pred func(event.Event) bool) []int {
	var out []int
	for i, e := range evs {
		if pred(e) {
			out = append(out, i)
		}
	}
	return out
}

func isType(t event.Type) func(event.Event) bool {
	return func(e event.Event) bool { return e.Type == t }
}

func finalStatus(h *harness) map[string]team.Status {
	out := map[string]team.Status{}
	for _, i := range h.rt.Team().Teammates() {
		out[i.Name] = i.Status
	}
	return out
}

// --- scenario building ---

func ptr[T any](v T) *T { return &v }

func call(name string, input map[string]any) loopback.ToolCall {
	return loopback.ToolCall{Name: name, Input: input}
}

func text(s string) *loopback.Response { return &loopback.Response{Text: s} }

func calls(cs ...loopback.ToolCall) *loopback.Response { return &loopback.Response{ToolCalls: cs} }

func mateSystem(name string) string { return "You are " + name + ", a teammate" }

// reportingMate scripts a teammate that, given its assignment, reports to
// the lead and waits; any later turn acknowledges. firstDelay delays its
// first answer (a busy teammate).
func reportingMate(name string, firstDelay int) []loopback.Rule {
	sys := mateSystem(name)
	first := calls(call("send_message", map[string]any{"to": "lead", "content": "report from " + name}))
	first.DelayMS = firstDelay
	return []loopback.Rule{
		{Name: name + "-report", Match: loopback.Match{SystemContains: sys, HasToolResults: ptr(false), LastUserContains: "Assignment"}, Respond: first},
		{Name: name + "-wait", Match: loopback.Match{SystemContains: sys, HasToolResults: ptr(true)}, Respond: text("Reported to the lead; waiting.")},
		{Name: name + "-ack", Match: loopback.Match{SystemContains: sys}, Respond: text("ack")},
	}
}

func spawnCall(name string) loopback.ToolCall {
	return call("team_spawn", map[string]any{"name": name, "role": "worker", "prompt": "Assignment for " + name + ": look around and report."})
}

// leadRules scripts the lead: on the user's prompt it makes first's calls;
// told every teammate is idle it shuts down the names; once they are shut
// down it answers final; anything else it notes.
func leadRules(first *loopback.Response, shutdown []string, final string, extra ...loopback.Rule) []loopback.Rule {
	var sd []loopback.ToolCall
	for _, n := range shutdown {
		sd = append(sd, call("shutdown_request", map[string]any{"to": n}))
	}
	lead := func(m loopback.Match) loopback.Match { m.SystemContains = leadSystem; return m }
	rules := []loopback.Rule{
		{Name: "lead-start", Match: lead(loopback.Match{LastUserContains: "Build it", HasToolResults: ptr(false)}), Respond: first},
		{Name: "lead-final", Match: lead(loopback.Match{ToolResultContains: "Shutdown requested"}), Respond: text(final)},
		// The idle notice may come alone (the lead woken) or folded into
		// the request that carries the lead's tool results (it was
		// delivered while the lead's tools ran): either way it is read.
		{Name: "lead-shutdown", Match: lead(loopback.Match{LastUserContains: "All teammates are idle"}), Respond: calls(sd...)},
	}
	rules = append(rules, extra...)
	return append(rules,
		loopback.Rule{Name: "lead-spawned", Match: lead(loopback.Match{ToolResultContains: "team"}), Respond: text("The team is working.")},
		loopback.Rule{Name: "lead-note", Match: lead(loopback.Match{}), Respond: text("Noted.")},
	)
}
