package team

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// fakeModel answers every teammate request in memory. Per teammate (found
// by its system prompt) it can fail, panic, or block until released.
type fakeModel struct {
	mu    sync.Mutex
	fail  map[string]string        // name -> error text for its next request
	panic map[string]bool          // name -> its next request panics
	hold  map[string]chan struct{} // name -> closed to let a held request answer
	seen  map[string][]string      // name -> last user text of each request
	ended map[string][]string      // name -> how each held request ended: "answered" or "cancelled"
}

func newFakeModel() *fakeModel {
	return &fakeModel{fail: map[string]string{}, panic: map[string]bool{}, hold: map[string]chan struct{}{}, seen: map[string][]string{}, ended: map[string][]string{}}
}

func (*fakeModel) Name() string  { return "fake" }
func (*fakeModel) Model() string { return "fake-1" }

func (f *fakeModel) Stream(ctx context.Context, req provider.Request, _ func(provider.Chunk)) (*provider.Response, error) {
	name := strings.TrimPrefix(req.System, "You are ")
	name = name[:strings.IndexByte(name, ',')]
	last := ""
	if n := len(req.Messages); n > 0 {
		for _, p := range req.Messages[n-1].Parts {
			last += p.Text
		}
	}
	f.mu.Lock()
	f.seen[name] = append(f.seen[name], last)
	failText, doPanic, hold := f.fail[name], f.panic[name], f.hold[name]
	delete(f.fail, name) // failures are one-shot
	delete(f.panic, name)
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
		}
		// A request cancelled while held counts as cancelled even if it
		// was released at the same moment.
		how := "answered"
		if ctx.Err() != nil {
			how = "cancelled"
		}
		f.mu.Lock()
		f.ended[name] = append(f.ended[name], how)
		f.mu.Unlock()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if doPanic {
		panic("fake model blew up")
	}
	if failText != "" {
		return nil, errors.New(failText)
	}
	return &provider.Response{Text: "ok", StopReason: provider.StopEndTurn}, nil
}

func (f *fakeModel) set(fn func()) {
	f.mu.Lock()
	fn()
	f.mu.Unlock()
}

func (f *fakeModel) requests(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen[name]...)
}

// heldEnds says how each of name's held requests ended.
func (f *fakeModel) heldEnds(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ended[name]...)
}

// fataler is what the helpers need of *testing.T and *rapid.T.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// fixture is a Manager over the fake model that records events and what
// the lead was told.
type fixture struct {
	m     *Manager
	model *fakeModel
	mu    sync.Mutex
	evs   []event.Event
	lead  []string
}

func newFixture(t fataler, max int) *fixture {
	f := &fixture{model: newFakeModel()}
	f.m = New(Config{SessionID: "s", Provider: f.model, MaxTeammates: max, Workspace: "/w",
		Sink: event.SinkFunc(func(e event.Event) {
			f.mu.Lock()
			f.evs = append(f.evs, e)
			f.mu.Unlock()
		}),
		DeliverToLead: func(text string) {
			f.mu.Lock()
			f.lead = append(f.lead, text)
			f.mu.Unlock()
		},
	})
	if err := f.m.Create("crew"); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) toLead() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lead...)
}

// statuses is name's teammate.status sequence so far.
func (f *fixture) statuses(name string) []Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Status
	for _, e := range f.evs {
		if d, ok := e.Data.(event.TeammateStatusData); ok && e.Type == event.TeammateStatus && d.Name == name {
			out = append(out, Status(d.Status))
		}
	}
	return out
}

func (f *fixture) status(name string) Status {
	st, _ := f.m.status(name)
	return st
}

// waitStatus waits until name has status want.
func (f *fixture) waitStatus(t fataler, name string, want Status) {
	deadline := time.Now().Add(5 * time.Second)
	for f.status(name) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s is %s, want %s", name, f.status(name), want)
		}
		time.Sleep(time.Millisecond)
	}
}

func (f *fixture) spawn(t fataler, name string) {
	if _, err := f.m.Spawn(SpawnSpec{Name: name, Role: "helper", Prompt: "Assignment for " + name}); err != nil {
		t.Fatalf("spawn %s: %v", name, err)
	}
}

func TestSendWakesAnIdleTeammateAndItGoesIdleAgain(t *testing.T) {
	f := newFixture(t, 0)
	defer f.m.Close()
	f.spawn(t, "ann")
	f.waitStatus(t, "ann", Idle)
	if err := f.m.Send("ann", "please also check the tests"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(f.model.requests("ann")) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the message did not wake ann")
		}
		time.Sleep(time.Millisecond)
	}
	f.waitStatus(t, "ann", Idle)
	got := f.model.requests("ann")[1]
	if !strings.Contains(got, `from="user" to="ann"`) || !strings.Contains(got, "please also check the tests") {
		t.Errorf("ann's second request got %q", got)
	}
	if f.m.Active() != 1 {
		t.Errorf("Active = %d, want 1: an idle teammate is alive", f.m.Active())
	}
}

func TestStopEndsAnIdleTeammateAsShutdownAndAWorkingOneAsInterrupted(t *testing.T) {
	f := newFixture(t, 0)
	defer f.m.Close()
	hold := make(chan struct{})
	defer close(hold)
	f.model.set(func() { f.model.hold["bob"] = hold })
	f.spawn(t, "ann")
	f.spawn(t, "bob")
	f.waitStatus(t, "ann", Idle)
	f.waitStatus(t, "bob", Working)
	if err := f.m.Stop("ann"); err != nil {
		t.Fatal(err)
	}
	f.m.StopAll()
	f.waitStatus(t, "ann", Shutdown)
	f.waitStatus(t, "bob", Interrupted)
	if f.m.Active() != 0 {
		t.Fatalf("Active = %d after stopping everyone", f.m.Active())
	}
	if err := f.m.Stop("ann"); err != nil {
		t.Errorf("stopping an ended teammate: %v", err)
	}
	if err := f.m.Stop("zed"); err == nil || !strings.Contains(err.Error(), `no teammate "zed"`) {
		t.Errorf("Stop(zed) = %v", err)
	}
}

func TestShutdownRequestLetsTheCurrentTurnFinish(t *testing.T) {
	f := newFixture(t, 0)
	defer f.m.Close()
	hold := make(chan struct{})
	f.model.set(func() { f.model.hold["ann"] = hold })
	f.spawn(t, "ann")
	f.waitStatus(t, "ann", Working)
	st, err := f.m.RequestShutdown("ann")
	if err != nil || st != Working {
		t.Fatalf("RequestShutdown = %s, %v", st, err)
	}
	if f.status("ann") != Working {
		t.Fatalf("ann is %s before its turn finished", f.status("ann"))
	}
	// ann's model request is held, so her turn cannot have finished: the
	// request must end answered, not cancelled by the shutdown request,
	// and she must go from working straight to shutdown.
	close(hold)
	f.waitStatus(t, "ann", Shutdown)
	if got := f.model.heldEnds("ann"); !slices.Equal(got, []string{"answered"}) {
		t.Errorf("ann's held request ended %v, want [answered]: a shutdown request lets the turn finish", got)
	}
	if got := f.statuses("ann"); !slices.Equal(got, []Status{Spawning, Working, Shutdown}) {
		t.Errorf("ann went through %v, want [spawning working shutdown]", got)
	}
	if _, err := f.m.RequestShutdown("ann"); err == nil || !strings.Contains(err.Error(), "has ended (shutdown)") {
		t.Errorf("second RequestShutdown = %v", err)
	}
}

func TestPanickingTeammateErrorsAndTheLeadIsToldFirst(t *testing.T) {
	f := newFixture(t, 0)
	defer f.m.Close()
	f.model.set(func() { f.model.panic["ann"] = true })
	f.spawn(t, "ann")
	f.waitStatus(t, "ann", Error)
	told := f.toLead()
	if len(told) == 0 || !strings.Contains(told[0], "Teammate ann (helper) failed") || !strings.Contains(told[0], "fake model blew up") {
		t.Fatalf("lead was told %q", told)
	}
	info := f.m.Teammates()[0]
	if info.Status != Error || !strings.Contains(info.Error, "panicked") || info.Ended.IsZero() {
		t.Errorf("info = %+v", info)
	}
}

func TestTeamRulesGiveClearErrors(t *testing.T) {
	f := newFixture(t, 2)
	defer f.m.Close()
	f.spawn(t, "ann")
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"second team", f.m.Create("other"), `team "crew" already exists; call team_delete first`},
		{"reserved name", spawnErr(f.m, "lead"), "reserved"},
		{"bad name", spawnErr(f.m, "a b"), "is not valid"},
		{"duplicate", spawnErr(f.m, "ann"), `teammate "ann" already exists`},
		{"message to self", f.m.send("ann", "ann", "hi"), "cannot send a message to itself"},
		{"unknown recipient", f.m.send(event.LeadID, "zed", "hi"), `no teammate "zed"; teammates: ann`},
		{"empty message", f.m.send(event.LeadID, "ann", " "), "empty"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.name, c.err, c.want)
		}
	}
	if _, err := f.m.sender("explore-1"); err == nil {
		t.Error("a sub-agent was accepted as a message sender")
	}
}

func spawnErr(m *Manager, name string) error {
	_, err := m.Spawn(SpawnSpec{Name: name, Prompt: "p"})
	return err
}

func TestSpawnWithoutATeamAndAfterCloseFail(t *testing.T) {
	m := New(Config{Provider: newFakeModel()})
	if err := spawnErr(m, "ann"); !errors.Is(err, ErrNoTeam) {
		t.Errorf("spawn without a team: %v", err)
	}
	_ = m.Create("t")
	m.Close()
	if err := spawnErr(m, "ann"); !errors.Is(err, ErrClosed) {
		t.Errorf("spawn after Close: %v", err)
	}
}

// TestPropertyManagerCountFollowsTeammateLives runs the real Manager (real
// goroutines and sessions over an in-memory model) through random spawns,
// messages, failures, panics, shutdown requests and stops. After each step
// settles, the reducer's count equals the teammates a plain model says are
// alive, and the lead's gate (complete iff the count is 0) follows.
func TestPropertyManagerCountFollowsTeammateLives(t *testing.T) {
	names := []string{"ann", "bob", "cy"}
	ops := []string{"spawn", "send", "fail", "panic", "shutdown", "stop", "broadcast"}
	rapid.Check(t, func(rt *rapid.T) {
		f := newFixture(rt, 2)
		defer f.m.Close()
		alive := map[string]bool{}
		for i := range rapid.IntRange(1, 12).Draw(rt, "steps") {
			op := rapid.SampledFrom(ops).Draw(rt, fmt.Sprintf("op%d", i))
			name := rapid.SampledFrom(names).Draw(rt, fmt.Sprintf("name%d", i))
			var err error
			wasAlive := alive[name]
			switch op {
			case "spawn":
				_, err = f.m.Spawn(SpawnSpec{Name: name, Role: "r", Prompt: "p"})
				if ok := !alive[name] && len(alive) < 2; ok != (err == nil) {
					rt.Fatalf("spawn %s with live %v: err %v", name, alive, err)
				}
				if err == nil {
					alive[name] = true
				}
			case "send":
				err = f.m.Send(name, "hello")
			case "broadcast":
				_, err = f.m.broadcast(event.LeadID, "hello all")
				if (err == nil) != (len(alive) > 0) {
					rt.Fatalf("broadcast with live %v: err %v", alive, err)
				}
				err = nil
			case "fail", "panic":
				if !alive[name] {
					continue
				}
				// The teammate is idle (settled): the failure hits the
				// turn the message starts.
				f.model.set(func() {
					if op == "fail" {
						f.model.fail[name] = "provider gave up"
					} else {
						f.model.panic[name] = true
					}
				})
				if err = f.m.Send(name, "trigger"); err != nil {
					rt.Fatalf("send to live %s: %v", name, err)
				}
				delete(alive, name)
			case "shutdown":
				_, err = f.m.RequestShutdown(name)
				if err == nil {
					delete(alive, name)
				}
			case "stop":
				if f.m.Stop(name) == nil {
					delete(alive, name)
				}
			}
			if (op == "send" || op == "shutdown") && (err == nil) != wasAlive {
				rt.Fatalf("%s %s (alive %v): err %v", op, name, wasAlive, err)
			}
			settleAll(rt, f, alive)
			if got := f.m.Active(); got != len(alive) || got < 0 {
				rt.Fatalf("step %d %s %s: Active %d, want %d (%v)", i, op, name, got, len(alive), f.m.Teammates())
			}
			if gate := f.m.Active() == 0; gate != (len(alive) == 0) {
				rt.Fatalf("gate says complete=%v with live %v", gate, alive)
			}
		}
	})
}

// settleAll waits until every live teammate is idle with no message
// waiting (read in that order, a turn cannot slip between them) and every
// other one has ended.
func settleAll(t fataler, f *fixture, alive map[string]bool) {
	for _, i := range f.m.Teammates() {
		if alive[i.Name] {
			s := f.m.mate(i.Name).session
			deadline := time.Now().Add(5 * time.Second)
			for s.Pending() || f.status(i.Name) != Idle {
				if time.Now().After(deadline) {
					t.Fatalf("%s is %s (pending %v), want it idle", i.Name, f.status(i.Name), s.Pending())
				}
				time.Sleep(time.Millisecond)
			}
		} else {
			deadline := time.Now().Add(5 * time.Second)
			for !f.status(i.Name).Terminal() {
				if time.Now().After(deadline) {
					t.Fatalf("%s is %s, want it ended", i.Name, f.status(i.Name))
				}
				time.Sleep(time.Millisecond)
			}
		}
	}
}

func TestTheUsersMessageToATeamThatDoesNotExistSaysSoWithoutNamingAModelTool(t *testing.T) {
	m := New(Config{SessionID: "s", Provider: newFakeModel(), Workspace: "/w", Sink: event.SinkFunc(func(event.Event) {}), DeliverToLead: func(string) {}})
	defer m.Close()
	for name, err := range map[string]error{"send": m.Send("nobody", "hi"), "stop": m.Stop("nobody")} {
		if err == nil || !strings.Contains(err.Error(), `no teammate "nobody": there is no team yet`) || strings.Contains(err.Error(), "team_create") {
			t.Errorf("/team %s nobody: %v", name, err)
		}
	}
}
