package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// openRun builds a runtime on the loopback model of scenario (cfg's
// provider, gate and workspace filled in) and starts it. The test stops
// and closes it itself.
func openRun(t *testing.T, scenario string, cfg Config) (*Runtime, *Run) {
	t.Helper()
	if cfg.NewLead == nil && cfg.Provider == nil {
		cfg.Provider, _ = testkit.Model(t, scenario)
	}
	if cfg.Gate == nil {
		cfg.Gate, _ = permission.NewGate(permission.Options{Mode: permission.BypassPermissions})
	}
	if cfg.Workspace.Root == "" {
		cfg.Workspace = tools.Workspace{Root: t.TempDir()}
	}
	rt, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rt, rt.Start(context.Background())
}

// session is a stand-in for an external CLI's session: run is its turn.
type session struct {
	run func(ctx context.Context, prompt string) (*backend.Result, error)
}

func (s *session) Run(ctx context.Context, prompt string) (*backend.Result, error) {
	return s.run(ctx, prompt)
}
func (s *session) Deliver(string)                                     {}
func (s *session) DeliverLazy(func() (string, bool), func() bool)     {}
func (s *session) Pending() bool                                      { return false }
func (s *session) Reset()                                             {}
func (s *session) SetModel(string)                                    {}
func (s *session) Model() string                                      { return "" }
func (s *session) Close() error                                       { return nil }
func (s *session) withCanceller(c func(string) error) backend.Session { return &cancelling{s, c} }

// cancelling is a session whose own sub-agents are cancelled one by one.
type cancelling struct {
	*session
	cancel func(id string) error
}

func (c *cancelling) CancelAgent(id string) error { return c.cancel(id) }

const backgroundStuck = `
rules:
  - {name: ack, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "started"}}
  - name: spawn
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls: [{name: task, input: {description: "stuck", prompt: "S", subagent_type: stuck, mode: background}}]
`

// A sub-agent that ignores its cancel (a CLI that hangs) keeps Stop no
// longer than the grace: Stop says so, and the agent's record is ended
// interrupted all the same.
func TestStopWithAStuckSubagentReturnsAfterTheGraceWithItInterrupted(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var cancelled sync.Once
	sawCancel := make(chan struct{})
	types := spawn.NewRegistry(spawn.Type{Name: "stuck", Description: "hangs", Backend: "hanging", Source: "stuck.md"})
	rt, run := openRun(t, backgroundStuck, Config{Types: types,
		Backends: func(string, backend.Config) (backend.Session, error) {
			return &session{run: func(ctx context.Context, _ string) (*backend.Result, error) {
				close(entered)
				<-ctx.Done()
				cancelled.Do(func() { close(sawCancel) })
				<-release // it ignores the cancel
				return nil, ctx.Err()
			}}, nil
		}})
	turn := run.Submit("go")
	<-entered
	if end, ran := turn.End(); !ran || end.StopReason != "end_turn" {
		t.Fatalf("turn ended %+v (ran %v), want the lead's answer", end, ran)
	}
	const grace = 300 * time.Millisecond
	start := time.Now()
	err := run.Stop(grace)
	took := time.Since(start)
	if !errors.Is(err, ErrAgentsDidNotStop) {
		t.Fatalf("Stop = %v, want ErrAgentsDidNotStop", err)
	}
	if took < grace || took > grace+2*time.Second {
		t.Errorf("Stop took %s with a grace of %s", took, grace)
	}
	select {
	case <-sawCancel:
	default:
		t.Error("Stop returned before the stuck agent's session was cancelled")
	}
	if rec, ok := rt.Bus().Agent("stuck-1"); !ok || rec.Status != lifecycle.Interrupted {
		t.Errorf("stuck-1's record = %+v, want interrupted", rec)
	}
	close(release)
	rt.Close()
}

// The cancels of a stop take time to deliver (an external CLI lead asked
// to stop each of its sub-agents; a cancel it cannot deliver fails): Stop
// with a grace far shorter than that still returns only once every one
// was sent, and names the one that failed.
func TestStopDeliversEveryCancelBeforeReturningAndNamesTheOneThatFailed(t *testing.T) {
	var mu sync.Mutex
	var delivered []string
	lead := &session{}
	var sink event.Sink
	lead.run = func(ctx context.Context, _ string) (*backend.Result, error) {
		for _, id := range []string{"cli-1", "cli-2", "cli-3"} {
			sink.Emit(event.Event{Type: event.SubagentStart, Time: time.Now(), AgentID: id, ParentAgentID: event.LeadID,
				Data: event.SubagentStartData{AgentType: "cli", Background: true, Backend: "cli"}})
		}
		return &backend.Result{Text: "started three", StopReason: "end_turn"}, nil
	}
	rt, run := openRun(t, "", Config{NewLead: func(cfg backend.Config) (backend.Session, error) {
		sink = cfg.Sink
		return lead.withCanceller(func(id string) error {
			time.Sleep(150 * time.Millisecond) // the CLI takes its time to answer
			mu.Lock()
			delivered = append(delivered, id)
			mu.Unlock()
			if id == "cli-2" {
				return errors.New("the CLI did not answer")
			}
			return nil
		}), nil
	}})
	defer rt.Close()
	if _, ran := run.Submit("go").End(); !ran {
		t.Fatal("the turn did not run")
	}
	err := run.Stop(time.Millisecond)
	mu.Lock()
	got := append([]string(nil), delivered...)
	mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("Stop returned with cancels delivered to %v, want cli-1, cli-2 and cli-3", got)
	}
	if err == nil || !strings.Contains(err.Error(), "cancel cli-2") || !strings.Contains(err.Error(), "the CLI did not answer") {
		t.Fatalf("Stop = %v, want it to name cli-2's failed cancel", err)
	}
	for _, id := range got {
		if rec, _ := rt.Bus().Agent(id); rec.Status != lifecycle.Interrupted {
			t.Errorf("%s's record = %+v, want interrupted", id, rec)
		}
	}
}

// A task queued for the workers is cancelled on the NATS server before
// Stop returns, even with no grace at all: closing the connection right
// after Stop (as atomic run does) loses no cancel.
func TestStopHasTheWorkersCancelOnTheServerBeforeItReturns(t *testing.T) {
	srv, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	d, err := remote.Dial(context.Background(), remote.Options{URL: srv.URL(), All: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	watch, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	tasks, cancels := make(chan *nats.Msg, 8), make(chan *nats.Msg, 8)
	if _, err := watch.ChanSubscribe(remote.TaskSubject, tasks); err != nil {
		t.Fatal(err)
	}
	if _, err := watch.ChanSubscribe("atomic.cancel.>", cancels); err != nil {
		t.Fatal(err)
	}
	if err := watch.Flush(); err != nil {
		t.Fatal(err)
	}
	rt, run := openRun(t, `
rules:
  - {name: ack, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "sent"}}
  - name: spawn
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls: [{name: task, input: {description: "far", prompt: "F", mode: background}}]
`, Config{Remote: d})
	run.Submit("go")
	select {
	case <-tasks:
	case <-time.After(20 * time.Second):
		t.Fatal("the task never reached the server")
	}
	stopErr := run.Stop(time.Nanosecond)
	// The server hands a message to its subscribers before it answers a
	// later ping: after this round trip, a cancel it had is in cancels.
	if err := watch.Flush(); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-cancels:
		if !strings.HasSuffix(m.Subject, ".general-purpose-1") {
			t.Errorf("cancel sent on %s, want general-purpose-1's", m.Subject)
		}
	default:
		t.Fatalf("Stop returned before the task's cancel reached the server (Stop = %v)", stopErr)
	}
	rt.Close()
}

// Each submitted prompt's turn ends exactly once: one that ran, with its
// turn.end; one an interrupt dropped before it started, and one submitted
// after Stop, not run.
func TestEachSubmittedPromptsTurnEndsOnceWhetherItRanOrWasDropped(t *testing.T) {
	rt, run := openRun(t, `
rules:
  - {name: slow, match: {last_user_contains: "SLOW"}, respond: {text: "late", delay_ms: 30000}}
  - {name: quick, respond: {text: "quick"}}
`, Config{})
	defer rt.Close()
	var mu sync.Mutex
	turnEnds := 0
	rt.Bus().Subscribe(func(e event.Event) {
		if e.Type == event.TurnEnd {
			mu.Lock()
			turnEnds++
			mu.Unlock()
		}
	})
	slow := run.Submit("SLOW")
	testkit.WaitFor(t, 10*time.Second, "the slow turn running", rt.Busy)
	queued := run.Submit("never")
	rt.Interrupt("test")
	if end, ran := slow.End(); !ran || end.StopReason != "interrupted" {
		t.Errorf("slow turn %+v (ran %v), want ran and interrupted", end, ran)
	}
	if end, ran := queued.End(); ran || end.StopReason != "interrupted" {
		t.Errorf("queued turn %+v (ran %v), want dropped", end, ran)
	}
	quick := run.Submit("again")
	if end, ran := quick.End(); !ran || end.StopReason != "end_turn" {
		t.Errorf("quick turn %+v (ran %v), want its answer", end, ran)
	}
	if err := run.Stop(5 * time.Second); err != nil {
		t.Fatalf("Stop = %v", err)
	}
	late := run.Submit("too late")
	select {
	case <-late.Done():
	case <-time.After(time.Second):
		t.Fatal("a prompt submitted after Stop never ended")
	}
	if _, ran := late.End(); ran {
		t.Error("a prompt submitted after Stop ran")
	}
	_ = rt.Bus().Flush(context.Background())
	mu.Lock()
	defer mu.Unlock()
	if turnEnds != 2 {
		t.Errorf("%d turn.end events, want 2 (the slow and the quick turn)", turnEnds)
	}
	if err := run.Stop(5 * time.Second); err != nil {
		t.Errorf("a second Stop = %v", err)
	}
}

// Start, a turn, Stop and Close leave no goroutine behind.
func TestStartSubmitStopAndCloseLeaveNoGoroutine(t *testing.T) {
	// Checked after every cleanup, the model server's included: its
	// clients' idle connections end with it.
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	p, _ := testkit.Model(t, `
rules:
  - {name: ack, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "started"}}
  - name: spawn
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls: [{name: task, input: {description: "bg", prompt: "BG", mode: background}}]
  - {name: sub, respond: {text: "slow", delay_ms: 30000}}
`)
	rt, run := openRun(t, "", Config{Provider: p})
	if _, ran := run.Submit("go").End(); !ran {
		t.Fatal("the turn did not run")
	}
	if err := run.Stop(5 * time.Second); err != nil {
		t.Fatalf("Stop = %v", err)
	}
	rt.Close()
}
