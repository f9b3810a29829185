package native

import (
	"context"
	"sync"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// TestSwitchingTheModelWhileASessionRunsIsSafe: /model may come from the UI
// while the session starts and streams; every read of the model takes the
// lock SetModel writes under (run with -race).
func TestSwitchingTheModelWhileASessionRunsIsSafe(t *testing.T) {
	p, _ := testkit.Model(t, "rules:\n  - {name: hi, respond: {text: hi}}\n")
	for range 20 {
		s := New(Config{ID: "lead", Provider: p, Model: "m1"})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := s.Run(context.Background(), "hello"); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			s.SetModel("m2")
			_ = s.Config()
		}()
		wg.Wait()
		if s.Model() != "m2" {
			t.Fatalf("model %q after the switch", s.Model())
		}
	}
}

// TestAWakeUpWhoseMessagesBecameMootMakesNoRequest: a session woken only
// for deliveries that were taken back meanwhile has nothing to say, and a
// request would answer the model's own last message.
func TestAWakeUpWhoseMessagesBecameMootMakesNoRequest(t *testing.T) {
	p, srv := testkit.Model(t, "rules:\n  - {name: hi, respond: {text: hi}}\n")
	s := New(Config{ID: "lead", Provider: p})
	if _, err := s.Run(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	moot := false
	s.DeliverLazy(func() (string, bool) { return "result", !moot }, func() bool { return !moot })
	if !s.Pending() {
		t.Fatal("a live delivery is not pending")
	}
	moot = true
	if s.Pending() {
		t.Fatal("a moot delivery is still pending")
	}
	if _, err := s.Run(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Log()); n != 1 {
		t.Fatalf("%d requests, want only the first: the moot wake-up made one", n)
	}
}
