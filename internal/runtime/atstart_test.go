package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// A prompt submitted with a start (an invoked skill's grant) while an
// earlier turn runs gets it as its own turn starts, after the earlier
// turn ended (which revokes the lead's grants), and a dropped prompt
// never runs it.
func TestSubmitAtStartRunsStartAsItsOwnTurnStartsAndNeverForADroppedPrompt(t *testing.T) {
	var mu sync.Mutex
	var order []string
	log := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	release := make(chan struct{})
	lead := &session{run: func(ctx context.Context, prompt string) (*backend.Result, error) {
		log("turn " + prompt)
		if prompt == "first" {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		log("end " + prompt)
		return &backend.Result{Text: "ok", StopReason: "end_turn"}, nil
	}}
	rt, run := openRun(t, "", Config{NewLead: func(backend.Config) (backend.Session, error) { return lead, nil }})
	defer rt.Close()
	first := run.Submit("first")
	testkit.WaitFor(t, 10*time.Second, "the first turn running", rt.Busy)
	skill := run.SubmitAtStart("skill", func() { log("start skill") })
	time.Sleep(50 * time.Millisecond) // a start run at submission would show now
	close(release)
	first.End()
	skill.End()
	mu.Lock()
	got := append([]string(nil), order...)
	mu.Unlock()
	want := []string{"turn first", "end first", "start skill", "turn skill", "end skill"}
	if len(got) != len(want) {
		t.Fatalf("order %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %q, want %q", got, want)
		}
	}

	release = make(chan struct{})
	first = run.Submit("first")
	testkit.WaitFor(t, 10*time.Second, "the first turn running again", rt.Busy)
	var ran atomic.Bool
	dropped := run.SubmitAtStart("dropped", func() { ran.Store(true) })
	rt.Interrupt("test")
	first.End()
	if _, started := dropped.End(); started || ran.Load() {
		t.Errorf("the dropped prompt ran %v, its start ran %v; want neither", started, ran.Load())
	}
	if err := run.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
}
