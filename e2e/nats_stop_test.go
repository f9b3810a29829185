//go:build unix

package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// A worker told to stop (SIGTERM, as a supervisor does) cancels its tasks,
// gives each back to the queue and tells the lead so, before it exits 0:
// the lead's rows go back to waiting for a worker at once, and wait as
// long as it takes (here longer than the ten heartbeats after which a
// silent worker is taken for lost), until another worker runs them.
func TestAStoppedWorkerTellsTheLeadItGaveItsTasksBackThenExitsZero(t *testing.T) {
	r := newRig(t, natsFanOut(2, 1500), 2)
	a := r.worker(t, 0, 2)
	l := r.start(t, "-p", "fan out")
	testkit.WaitFor(t, 20*time.Second, "worker-a to start both tasks", func() bool { return a.count(": started (") == 2 })
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("worker-a still running 10s after SIGTERM:\n%s", a.log())
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("worker-a exited %d, want 0:\n%s", code, a.log())
	}
	if n := a.count("given back (worker stopping); the lead was told"); n != 2 {
		t.Fatalf("%d tasks given back with the lead told, want 2:\n%s", n, a.log())
	}
	time.Sleep(10*300*time.Millisecond + 500*time.Millisecond) // past ten of the lead's heartbeats
	r.worker(t, 1, 2)
	evs := l.wait(t, r)

	told := map[string]bool{}
	for _, e := range evs {
		if e.Type != event.SubagentUpdate {
			continue
		}
		d := data[event.SubagentUpdateData](t, e)
		if d.Note == "worker-a stopped: waiting for another worker" {
			if d.Waiting != lifecycle.WaitingSlot {
				t.Errorf("%s: the row says %q but is not waiting (%q)", e.AgentID, d.Note, d.Waiting)
			}
			told[e.AgentID] = true
		}
	}
	st := replay(evs, func(int, event.Raw, *lifecycle.State) {})
	for _, id := range []string{"general-purpose-1", "general-purpose-2"} {
		if !told[id] {
			t.Errorf("%s: the lead's row never said worker-a stopped", id)
		}
		if c := completeOf(t, evs, id); !c.Success {
			t.Errorf("%s: %+v, want it finished on worker-b", id, c)
		}
		if rec, _ := st.Get(id); rec.Worker != "worker-b" || !strings.HasPrefix(rec.Note, "restarted on worker-b") {
			t.Errorf("%s: worker %q note %q, want restarted on worker-b", id, rec.Worker, rec.Note)
		}
	}
	noWorktrees(t, r.workers)
}
