//go:build unix

package e2e

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// lockedBuf is a process's output, readable while the process writes it.
type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// subsInFlight counts the sub-agents' model requests under way.
func subsInFlight(srv *loopback.Server) int {
	n := 0
	for _, e := range subRequests(srv) {
		if !e.Done() {
			n++
		}
	}
	return n
}

// The lead's local cap (--max-subagents 2) is not the remote tasks' cap:
// two workers of concurrency 3 run all six task calls of one message at
// once. Each task is pending in the lead's tree until a worker claims it,
// then running on that worker. The model holds every sub-agent's request
// for a minute, so six in flight at one instant is the overlap itself,
// not a timing guess; an interrupt then ends them.
func TestRemoteTasksTakeNoLocalSlotsSixRunAtOnceOnTwoWorkersOfThree(t *testing.T) {
	r := newRig(t, natsFanOut(6, 60000), 2)
	for i := range 2 {
		r.worker(t, i, 3)
	}
	var out lockedBuf
	var errb strings.Builder
	cmd := lead(t, t.Context(), r.srv, r.repo, r.url, "--max-subagents", "2", "-p", "fan out")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 30*time.Second, "six sub-agent model requests in flight at once", func() bool { return subsInFlight(r.srv) == 6 })
	// The lead has announced each claim (its subagent.start names the
	// worker) before the interrupt, so its tree saw them all running.
	testkit.WaitFor(t, 10*time.Second, "the lead to announce six claims", func() bool {
		return strings.Count(out.String(), `"type":"subagent.start"`) == 6
	})
	if n := loopback.MaxConcurrent(subRequests(r.srv)); n != 6 {
		t.Fatalf("at most %d sub-agent requests were in flight at once, want 6", n)
	}
	started := 0
	for _, w := range r.workers {
		n := w.count(": started (")
		if n != 3 {
			t.Errorf("worker %s started %d tasks, want its concurrency of 3:\n%s", w.name, n, w.log())
		}
		started += n
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	testkit.WaitFor(t, 10*time.Second, "every worker idle", func() bool {
		for _, w := range r.workers {
			if !w.idle() {
				return false
			}
		}
		return true
	})

	evs := events(t, out.String())
	seen := map[string][]lifecycle.Status{} // each agent's statuses, in order
	maxRunning := 0
	replay(evs, func(_ int, e event.Raw, st *lifecycle.State) {
		running := 0
		for _, rec := range st.Records() {
			if s := seen[rec.ID]; len(s) == 0 || s[len(s)-1] != rec.Status {
				seen[rec.ID] = append(s, rec.Status)
			}
			if rec.Status == lifecycle.Running {
				running++
			}
		}
		maxRunning = max(maxRunning, running)
	})
	if len(seen) != 6 {
		t.Fatalf("the lead's tree has %d agents, want 6: %v", len(seen), seen)
	}
	for id, s := range seen {
		if len(s) < 2 || s[0] != lifecycle.Pending || s[1] != lifecycle.Running {
			t.Errorf("%s went %v, want pending (waiting for a worker), then running", id, s)
		}
	}
	if maxRunning != 6 {
		t.Errorf("the lead's tree had at most %d agents running at once, want 6", maxRunning)
	}
	cancelled := 0
	for _, w := range r.workers {
		cancelled += w.count("cancelled: cancelled by the lead")
	}
	if cancelled != started {
		t.Errorf("%d of the %d tasks were cancelled by the lead's interrupt:\n%s\nlead: %s", cancelled, started, logs(r.workers), errb.String())
	}
	noWorktrees(t, r.workers)
}

// subRequests are the sub-agents' model requests.
func subRequests(srv *loopback.Server) []loopback.LogEntry {
	var out []loopback.LogEntry
	for _, e := range srv.Log() {
		if strings.HasPrefix(e.Rule, "sub-") {
			out = append(out, e)
		}
	}
	return out
}

// --max-remote-tasks caps the tasks on the workers, whatever their room:
// with a cap of 2, two workers of concurrency 3 never run more than two of
// the six task calls at once, every task still runs to its result, and
// the tasks beyond the cap wait pending in the lead's tree.
func TestMaxRemoteTasksCapsTheTasksOnTheWorkersAtOnce(t *testing.T) {
	r := newRig(t, natsFanOut(6, 700), 2)
	for i := range 2 {
		r.worker(t, i, 3)
	}
	var out lockedBuf
	var errb strings.Builder
	cmd := lead(t, t.Context(), r.srv, r.repo, r.url, "--max-remote-tasks", "2", "-p", "fan out")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("the lead failed: %v\n%s", err, errb.String())
	}
	if n := len(subRequests(r.srv)); n != 6 {
		t.Fatalf("%d sub-agent requests, want the six tasks'", n)
	}
	if n := loopback.MaxConcurrent(subRequests(r.srv)); n != 2 {
		t.Fatalf("at most %d sub-agent requests were in flight at once, want the cap of 2", n)
	}
	evs := events(t, out.String())
	done := completes(t, evs)
	if len(done) != 6 {
		t.Fatalf("%d sub-agents completed, want 6: %v", len(done), done)
	}
	for id, cs := range done {
		if len(cs) != 1 || !cs[0].Success {
			t.Errorf("%s ended %+v, want one successful completion", id, cs)
		}
	}
	pending := 0
	replay(evs, func(_ int, _ event.Raw, st *lifecycle.State) {
		n := 0
		for _, rec := range st.Records() {
			if rec.Status == lifecycle.Pending {
				n++
			}
		}
		pending = max(pending, n)
	})
	if pending < 4 {
		t.Errorf("at most %d tasks waited pending at once, want the four beyond the cap", pending)
	}
}
