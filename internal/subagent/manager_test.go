package subagent

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, testkit.KnownLeaks()...) }

type sink struct {
	mu  sync.Mutex
	evs []event.Event
	// of is the bus the sink subscribes to (nil: it is the bus's direct
	// sink): events waits until the bus has delivered all it was given.
	of *bus.Bus
}

func (s *sink) Emit(e event.Event) {
	s.mu.Lock()
	s.evs = append(s.evs, e)
	s.mu.Unlock()
}

func (s *sink) count(typ event.Type) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

const answers = `
rules:
  - {name: fail, match: {first_user_contains: FAIL}, respond: {error: {status: 500, type: api_error, message: "boom"}}}
  - {name: slow, match: {first_user_contains: SLOW}, respond: {text: "slow done", delay_ms: 20000}}
  - {name: ok, respond: {text: "done: task finished", delay_ms: 50}}
`

func newManager(t *testing.T, p provider.Provider, max int, s *sink) *Manager {
	m := New(Config{SessionID: "s", Provider: p, Model: "test-model", Sink: s, MaxConcurrent: max, Tools: tools.NewSet()})
	t.Cleanup(m.Close)
	return m
}

func TestSpawnParallelKeepsEveryResultIndependent(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	s := &sink{}
	m := newManager(t, p, 5, s)
	res := m.SpawnParallel(context.Background(), []Spec{
		{Prompt: "A", Description: "a"}, {Prompt: "FAIL", Description: "b"}, {Prompt: "C", Description: "c"}, {Prompt: "x", Type: "wizard"},
	})
	if res[0].Status != lifecycle.Completed || res[2].Status != lifecycle.Completed || res[0].Result != "done: task finished" {
		t.Fatalf("siblings: %+v / %+v", res[0], res[2])
	}
	if res[1].Status != lifecycle.Error || !strings.Contains(res[1].Error, "500") {
		t.Fatalf("failing agent: %+v", res[1].Record)
	}
	if res[3].Err == nil || !strings.Contains(res[3].Err.Error(), "known types") {
		t.Fatalf("unknown type: %v", res[3].Err)
	}
	if s.count(event.SubagentStart) != 3 || s.count(event.SubagentComplete) != 3 {
		t.Fatalf("start/complete events: %d/%d", s.count(event.SubagentStart), s.count(event.SubagentComplete))
	}
}

// panicky makes the sub-agent's session itself blow up.
type panicky struct{ provider.Provider }

func (panicky) Stream(context.Context, provider.Request, func(provider.Chunk)) (*provider.Response, error) {
	panic("provider bug")
}

func TestAPanickingSessionEndsAsAnErrorAndReleasesItsSlot(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m := newManager(t, panicky{p}, 1, &sink{})
	a, _ := m.Spawn(context.Background(), Spec{Prompt: "A"})
	b, _ := m.Spawn(context.Background(), Spec{Prompt: "B"})
	for _, task := range []*Task{a, b} {
		info, _ := m.Wait(context.Background(), task)
		if info.Status != lifecycle.Error || !strings.Contains(info.Error, "panicked: provider bug") {
			t.Fatalf("%s: %+v", task.ID, info)
		}
	}
}

func TestSyncTaskEndsWithItsCallerButBackgroundTaskDoesNot(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m := newManager(t, p, 5, &sink{})
	ctx, cancel := context.WithCancel(context.Background())
	syncT, _ := m.Spawn(ctx, Spec{Prompt: "SLOW sync"})
	bg, _ := m.Spawn(ctx, Spec{Prompt: "A bg", Background: true})
	cancel()
	info, _ := m.Wait(context.Background(), syncT)
	if info.Status != lifecycle.Interrupted {
		t.Fatalf("sync task after its caller was cancelled: %s", info.Status)
	}
	info, _ = m.Wait(context.Background(), bg)
	if info.Status != lifecycle.Completed {
		t.Fatalf("background task must outlive its caller's turn: %s", info.Status)
	}
}

func TestCloseCancelsEveryTaskAndWaitsForThem(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	s := &sink{}
	m := New(Config{Provider: p, Sink: s, MaxConcurrent: 2, Tools: tools.NewSet()})
	var tasks []*Task
	for i := 0; i < 4; i++ {
		tk, _ := m.Spawn(context.Background(), Spec{Prompt: "SLOW", Background: true})
		tasks = append(tasks, tk)
	}
	start := time.Now()
	m.Close()
	if time.Since(start) > 2*time.Second {
		t.Fatalf("Close took %s", time.Since(start))
	}
	for _, tk := range tasks {
		if st := m.Record(tk).Status; st != lifecycle.Interrupted {
			t.Fatalf("%s ended %s", tk.ID, st)
		}
	}
	if _, err := m.Spawn(context.Background(), Spec{Prompt: "x"}); err != ErrClosed {
		t.Fatalf("spawn after close: %v", err)
	}
}

func TestQueuedTasksStartInSpawnOrder(t *testing.T) {
	p, srv := testkit.Model(t, answers)
	m := newManager(t, p, 1, &sink{})
	var tasks []*Task
	for _, name := range []string{"T1", "T2", "T3", "T4"} {
		tk, _ := m.Spawn(context.Background(), Spec{Prompt: name})
		tasks = append(tasks, tk)
	}
	for _, tk := range tasks {
		if info, err := m.Wait(context.Background(), tk); err != nil || info.Status != lifecycle.Completed {
			t.Fatalf("%s ended %s (%v), want completed", tk.ID, info.Status, err)
		}
	}
	log := srv.Log()
	if len(log) != len(tasks) {
		t.Fatalf("the server saw %d requests, want one per task (%d)", len(log), len(tasks))
	}
	for i, e := range log {
		if want := tasks[i].Spec.Prompt; e.LastUserText() != want {
			t.Fatalf("request %d was %q, want %q", i, e.LastUserText(), want)
		}
	}
	if ids := []string{tasks[0].ID, tasks[3].ID}; ids[0] != "general-purpose-1" || ids[1] != "general-purpose-4" {
		t.Fatalf("ids %v", ids)
	}
}

func TestSlotsHandOverInArrivalOrderAndSurviveCancelledWaiters(t *testing.T) {
	s := newSlots(1)
	first := s.join()
	if first.queued() {
		t.Fatal("first ticket should hold the slot")
	}
	second, third := s.join(), s.join()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := second.wait(ctx); err == nil {
		t.Fatal("cancelled waiter should give up")
	}
	s.release()
	if err := third.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.release()
	if s.join().queued() {
		t.Fatal("slot should be free again")
	}
}

func TestCutKeepsAtMostMaxCharactersAndSaysHowManyOfHowMany(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"short ASCII is whole", "hello", 5, "hello"},
		{"long ASCII", "hello world", 5, "hello\n\n[result cut: 5 of 11 characters shown]"},
		// 100 two-byte characters: a byte count would keep 25 of "200".
		{"two-byte characters count once", strings.Repeat("é", 100), 50, strings.Repeat("é", 50) + "\n\n[result cut: 50 of 100 characters shown]"},
		{"short multi-byte text is whole", strings.Repeat("é", 100), 100, strings.Repeat("é", 100)},
		{"four-byte characters", "🙂🙂🙂🙂", 3, "🙂🙂🙂\n\n[result cut: 3 of 4 characters shown]"},
		{"mixed widths", "añb中c", 4, "añb中\n\n[result cut: 4 of 5 characters shown]"},
	}
	for _, tt := range tests {
		if got := cut(tt.in, tt.max); got != tt.want {
			t.Errorf("%s: cut(%q, %d) = %q, want %q", tt.name, tt.in, tt.max, got, tt.want)
		}
	}
}

func TestTheNamerSkipsTheIDsOfAResumedSessionsAgents(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m := newManager(t, p, 5, &sink{})
	m.Taken("explore-2")
	m.Taken("explore-3")
	m.Taken("odd id, never parsed")
	var got []string
	for range 3 {
		got = append(got, m.Name("Explore"))
	}
	if want := []string{"explore-1", "explore-4", "explore-5"}; !slices.Equal(got, want) {
		t.Fatalf("names %q, want %q: a taken id is never given again", got, want)
	}
}
