package runtime

import (
	"context"
	"fmt"
	"github.com/google/go-cmp/cmp"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/anthropic"
	"github.com/atomic-agent/atomic/internal/tools"
)

// TestCompleteComesOnceAndOnlyWhenNothingIsActive drives the real runtime
// (official SDK client, loopback server) through random mixes of sync and
// background tasks with random delays, failures, caps and interrupts.
func TestCompleteComesOnceAndOnlyWhenNothingIsActive(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 5).Draw(rt, "tasks")
		var calls, subs strings.Builder
		bg := make([]bool, n)
		for i := 0; i < n; i++ {
			bg[i] = rapid.Bool().Draw(rt, "background")
			mode := "sync"
			if bg[i] {
				mode = "background"
			}
			fmt.Fprintf(&calls, "        - {name: task, input: {description: \"task %d\", prompt: \"TASK-%d\", mode: %s}}\n", i, i, mode)
			delay := rapid.IntRange(0, 60).Draw(rt, "delay")
			if rapid.IntRange(0, 3).Draw(rt, "fails") == 0 {
				fmt.Fprintf(&subs, "  - {match: {first_user_contains: TASK-%d}, respond: {error: {status: 500, message: boom}, delay_ms: %d}}\n", i, delay)
			} else {
				fmt.Fprintf(&subs, "  - {match: {first_user_contains: TASK-%d}, respond: {text: \"done %d\", delay_ms: %d}}\n", i, i, delay)
			}
		}
		scenario := fmt.Sprintf(`
rules:
  - {name: woken, match: {system_contains: "You are Atomic", last_user_contains: "task-notification"}, respond: {text: "noted"}}
  - {name: final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "final"}}
  - name: fanout
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
%s%s`, calls.String(), subs.String())
		sc, err := loopback.ParseScenario([]byte(scenario))
		if err != nil {
			rt.Fatal(err)
		}
		srv := loopback.New(sc)
		if err := srv.Start(); err != nil {
			rt.Fatal(err)
		}
		defer srv.Close()
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		p, _ := anthropic.New(anthropic.Config{APIKey: "k", BaseURL: srv.URL(), Model: "m", HTTPClient: &http.Client{Transport: tr},
			Retry: provider.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}})
		gate, _ := permission.NewGate(permission.Options{})
		r := New(Config{Provider: p, Gate: gate, Workspace: tools.Workspace{Root: t.TempDir()},
			MaxSubagents: rapid.IntRange(1, 4).Draw(rt, "cap"), CancelOnLeadError: true})

		var mu sync.Mutex
		var evs []event.Event
		var st lifecycle.State
		var badComplete string
		r.Bus().Subscribe(func(e event.Event) {
			mu.Lock()
			defer mu.Unlock()
			evs = append(evs, e)
			st.Apply(e)
			if e.Type == event.Complete && !st.Settled() {
				badComplete = fmt.Sprintf("complete with %d agents active and %d sessions still open", st.Active(), st.Open())
			}
		})
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan struct{})
		go func() { r.Serve(ctx); close(served) }()
		defer func() { cancel(); <-served; r.Close() }()

		r.Submit("go")
		interruptAfter := rapid.IntRange(0, 4).Draw(rt, "interrupt") // 0: interrupt; else not
		if interruptAfter == 0 {
			time.Sleep(time.Duration(rapid.IntRange(0, 60).Draw(rt, "interruptAt")) * time.Millisecond)
			r.Interrupt("test")
		}
		select {
		case <-r.Completed():
		case <-time.After(15 * time.Second):
			rt.Fatal("never completed")
		}
		// Nothing may follow complete: shut the run down, which ends (and
		// reports) anything still going, so evs holds all it will ever emit.
		cancel()
		<-served
		r.Close()
		mu.Lock()
		defer mu.Unlock()
		if badComplete != "" {
			rt.Fatal(badComplete)
		}
		completes := 0
		for i, e := range evs {
			if e.Type == event.Complete {
				completes++
				// Only the test's own interrupt may come later (it can land
				// after a quick run has already completed).
				for _, after := range evs[i+1:] {
					if after.Type != event.Interrupt {
						rt.Fatalf("%s after complete", after.Type)
					}
				}
			}
		}
		if completes != 1 {
			rt.Fatalf("%d complete events", completes)
		}
		for _, rec := range st.Records() {
			if !rec.Status.Terminal() {
				rt.Fatalf("%s still %s at the end", rec.ID, rec.Status)
			}
		}
		// Every view reads the one state: the bus's reducer is the replay
		// of the stream, and the manager's tasks report what it says.
		if diff := cmp.Diff(st.Records(), r.Bus().Agents()); diff != "" {
			rt.Fatalf("bus state differs from a replay of its events (-replay +bus):\n%s", diff)
		}
		for _, task := range r.Manager().Tasks() {
			rec, _ := st.Get(task.ID)
			if got := r.Manager().Record(task); got != rec {
				rt.Fatalf("manager reports %s as %+v, the reducer as %+v", task.ID, got, rec)
			}
			if rec.Session != lifecycle.SessionClosed {
				rt.Fatalf("%s ended with its session %q", task.ID, rec.Session)
			}
		}
	})
}
