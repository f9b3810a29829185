package native

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// gate is a tools.Notifier whose calls end when the test opens them, by
// key; a call keyed "now" is ready before StartNotify returns, one keyed
// "panic" is ready and then panics.
type gate struct {
	lockKey bool
	mu      sync.Mutex
	ready   map[string]func()
	opened  map[string]chan struct{}
}

func (g *gate) Name() string        { return "gate" }
func (g *gate) Description() string { return "test gate" }
func (g *gate) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}},"additionalProperties":false}`)
}
func (g *gate) Kind() tools.Kind { return tools.ReadOnly }
func (g *gate) LockKeys(json.RawMessage) []string {
	if g.lockKey {
		return []string{"one"}
	}
	return nil
}

func key(in json.RawMessage) string {
	var v struct{ Key string }
	json.Unmarshal(in, &v)
	return v.Key
}

func (g *gate) Run(ctx context.Context, c tools.Call) (tools.Result, error) {
	wait, err := g.Start(ctx, c)
	if err != nil {
		return tools.Result{}, err
	}
	return wait()
}

func (g *gate) Start(ctx context.Context, c tools.Call) (func() (tools.Result, error), error) {
	return g.StartNotify(ctx, c, func() {})
}

func (g *gate) StartNotify(ctx context.Context, c tools.Call, ready func()) (func() (tools.Result, error), error) {
	k := key(c.Input)
	g.mu.Lock()
	if g.ready == nil {
		g.ready, g.opened = map[string]func(){}, map[string]chan struct{}{}
	}
	g.ready[k], g.opened[k] = ready, make(chan struct{})
	opened := g.opened[k]
	g.mu.Unlock()
	switch k {
	case "now":
		g.open(k)
	case "panic":
		g.open(k)
		panic("after ready")
	}
	return func() (tools.Result, error) {
		select {
		case <-opened:
			return tools.Result{Content: "ok " + k}, nil
		case <-ctx.Done():
			return tools.Result{}, ctx.Err()
		}
	}, nil
}

func (g *gate) open(k string) {
	g.mu.Lock()
	close(g.opened[k])
	f := g.ready[k]
	g.mu.Unlock()
	f()
}

func (g *gate) started() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.ready)
}

// loopGoroutines counts the goroutines inside the agent loop's runTools.
func loopGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "native.(*Session).runTools") {
			n++
		}
	}
	return n
}

func TestCallsThatSayWhenTheyAreReadyAreWaitedForOnTheLoopsOwnGoroutine(t *testing.T) {
	p, srv := testkit.Model(t, scenario("gate", "b"))
	rec := &recorder{}
	g := &gate{}
	s := New(Config{ID: "lead", Provider: p, Sink: rec, Tools: tools.NewSet(g)})
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), "go")
		done <- err
	}()
	testkit.WaitFor(t, 5*time.Second, "three calls started", func() bool { return g.started() == 3 })
	if n := loopGoroutines(); n != 1 {
		t.Fatalf("%d goroutines in the loop's tool calls while three calls wait, want 1 (the loop's own)", n)
	}
	for _, k := range []string{"c", "a", "b"} {
		g.open(k)
		testkit.WaitFor(t, 5*time.Second, "the call's completion", func() bool {
			evs := rec.of(event.ToolComplete)
			return len(evs) > 0 && strings.Contains(evs[len(evs)-1].Data.(event.ToolCompleteData).Result, k)
		})
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Completed as each became ready; sent back in the model's order.
	res := srv.Log()[1].LastToolResults()
	for i, want := range []string{"ok a", "ok b", "ok c"} {
		if res[i].Content != want || res[i].IsError {
			t.Fatalf("result %d = %+v, want %q", i, res[i], want)
		}
	}
}

func TestACallReadyAtOnceOrPanickingAfterReadyEndsTheToolsOfItsMessage(t *testing.T) {
	p, srv := testkit.Model(t, strings.NewReplacer(`"a"`, `"now"`, `"c"`, `"panic"`).Replace(scenario("gate", "b")))
	g := &gate{}
	s := New(Config{ID: "lead", Provider: p, Tools: tools.NewSet(g)})
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), "go")
		done <- err
	}()
	testkit.WaitFor(t, 5*time.Second, "three calls started", func() bool { return g.started() == 3 })
	g.open("b")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the loop still waits after every call was ready")
	}
	res := srv.Log()[1].LastToolResults()
	if res[0].Content != "ok now" || res[1].Content != "ok b" || !res[2].IsError || !strings.Contains(res[2].Content, "panicked") {
		t.Fatalf("results %+v", res)
	}
}

func TestReadyCallsSharingALockKeyAreWaitedForInTheModelsOrder(t *testing.T) {
	p, srv := testkit.Model(t, scenario("gate", "b"))
	rec := &recorder{}
	g := &gate{lockKey: true}
	s := New(Config{ID: "lead", Provider: p, Sink: rec, Tools: tools.NewSet(g)})
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), "go")
		done <- err
	}()
	testkit.WaitFor(t, 5*time.Second, "three calls started", func() bool { return g.started() == 3 })
	for _, k := range []string{"c", "b", "a"} {
		g.open(k)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range rec.of(event.ToolComplete) {
		order = append(order, e.Data.(event.ToolCompleteData).Result)
	}
	if strings.Join(order, ",") != "ok a,ok b,ok c" {
		t.Fatalf("completed in the order %v, want the model's (they share a lock key)", order)
	}
	if res := srv.Log()[1].LastToolResults(); res[2].Content != "ok c" {
		t.Fatalf("results %+v", res)
	}
}
