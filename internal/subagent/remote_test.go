package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// natsWorld is an embedded NATS server, a repository that lead and
// worker share, and the lead's dispatcher sending every task there.
type natsWorld struct {
	opts remote.Options
	repo string
	d    *remote.Dispatcher
}

func newNATSWorld(t *testing.T) *natsWorld {
	t.Helper()
	srv, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "a\n"})
	opts := remote.Options{URL: srv.URL(), Heartbeat: time.Second, All: true, Workspace: repo}
	d, err := remote.Dial(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return &natsWorld{opts: opts, repo: repo, d: d}
}

// heldWorker is a real worker (remote.Serve) whose tasks run until the
// test lets them finish.
type heldWorker struct {
	mu      sync.Mutex
	running int // tasks in the runner now
	ran     int // tasks the runner has taken
	release chan struct{}
}

// worker starts a worker of concurrency n on the world's repository; it
// stops at the test's end.
func (w *natsWorld) worker(t *testing.T, name string, n int) *heldWorker {
	t.Helper()
	h := &heldWorker{release: make(chan struct{})}
	ctx, stop := context.WithCancel(context.Background())
	ready := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- remote.Serve(ctx, remote.WorkerConfig{Options: w.opts, Name: name, Workspace: w.repo, Concurrency: n,
			Ready: func() { close(ready) },
			Run: func(ctx context.Context, task remote.Task, _ string, _ func() error, _ event.Sink) (*backend.Result, error) {
				h.mu.Lock()
				h.running++
				h.ran++
				h.mu.Unlock()
				defer func() {
					h.mu.Lock()
					h.running--
					h.mu.Unlock()
				}()
				select {
				case <-h.release:
					return &backend.Result{Text: "done " + task.ID}, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}})
	}()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Error(err)
		}
	})
	select {
	case <-ready:
	case err := <-served:
		t.Fatalf("worker %s: %v", name, err)
	}
	return h
}

func (h *heldWorker) counts() (running, ran int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running, h.ran
}

// spawnCall reserves and spawns a sync task as the lead's task call does,
// announcing the call's tool.start in between (which creates the
// reducer's eager record, pending when the reservation says it waits).
func spawnCall(t *testing.T, m *Manager, i int) *Task {
	t.Helper()
	spec := Spec{Description: fmt.Sprintf("part %d", i), Prompt: fmt.Sprintf("do part %d", i),
		ToolCallID: fmt.Sprintf("call-%d", i), ParentID: "lead"}
	task, queued, err := m.Reserve(spec)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]string{"description": spec.Description, "prompt": spec.Prompt})
	m.cfg.Sink.Emit(event.Event{Type: event.ToolStart, AgentID: "lead", ToolCallID: spec.ToolCallID,
		Data: event.ToolStartData{Name: "task", Input: in, Queued: queued, SubagentID: task.ID, SubagentSessionID: task.SessionID}})
	got, err := m.Spawn(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func statusOf(m *Manager, t *Task) lifecycle.Status { return m.Record(t).Status }

func TestRemoteTasksWaitPendingForAWorkerThenRunBeyondTheLocalSlots(t *testing.T) {
	w := newNATSWorld(t)
	m := New(Config{SessionID: "s", Sink: &sink{}, MaxConcurrent: 1, Tools: tools.NewSet(), Remote: w.d})
	t.Cleanup(m.Close)
	var tasks []*Task
	for i := range 3 {
		tasks = append(tasks, spawnCall(t, m, i))
	}
	// No worker yet: every task waits for one, pending, and none holds
	// the one local slot.
	for _, tk := range tasks {
		if st := statusOf(m, tk); st != lifecycle.Pending {
			t.Fatalf("%s is %s before any worker runs, want pending", tk.ID, st)
		}
	}
	if local := m.slots.join(); local.queued() {
		t.Fatal("a remote task holds the local slot")
	} else {
		local.abandon()
	}
	h := w.worker(t, "w1", 3)
	testkit.WaitFor(t, 20*time.Second, "the worker to run all 3 tasks at once", func() bool {
		running, _ := h.counts()
		return running == 3
	})
	testkit.WaitFor(t, 10*time.Second, "every task running on w1", func() bool {
		for _, tk := range tasks {
			if r := m.Record(tk); r.Status != lifecycle.Running || r.Worker != "w1" {
				return false
			}
		}
		return true
	})
	close(h.release)
	for _, tk := range tasks {
		if r, err := m.Wait(context.Background(), tk); err != nil || r.Status != lifecycle.Completed || r.Result != "done "+tk.ID {
			t.Fatalf("%s ended %s %q (%v), want completed with its result", tk.ID, r.Status, r.Result, err)
		}
	}
}

func TestMaxRemoteCapsTheTasksSentToTheWorkersAndTheRestWaitPending(t *testing.T) {
	w := newNATSWorld(t)
	h := w.worker(t, "w1", 3)
	m := New(Config{SessionID: "s", Sink: &sink{}, MaxConcurrent: 1, MaxRemote: 2, Tools: tools.NewSet(), Remote: w.d})
	t.Cleanup(m.Close)
	var tasks []*Task
	for i := range 3 {
		tasks = append(tasks, spawnCall(t, m, i))
	}
	testkit.WaitFor(t, 20*time.Second, "the first 2 tasks running on the worker", func() bool {
		running, _ := h.counts()
		return running == 2 && statusOf(m, tasks[0]) == lifecycle.Running && statusOf(m, tasks[1]) == lifecycle.Running
	})
	// The third waits behind the cap, not sent: the worker has a free
	// slot it would otherwise have claimed it with.
	m.remoteSlots.mu.Lock()
	waiting := len(m.remoteSlots.waiters)
	m.remoteSlots.mu.Unlock()
	if waiting != 1 {
		t.Fatalf("%d tasks wait for the remote cap, want 1", waiting)
	}
	if st := statusOf(m, tasks[2]); st != lifecycle.Pending {
		t.Fatalf("the third task is %s behind the cap, want pending", st)
	}
	close(h.release)
	for _, tk := range tasks {
		if r, err := m.Wait(context.Background(), tk); err != nil || r.Status != lifecycle.Completed {
			t.Fatalf("%s ended %s (%v), want completed", tk.ID, r.Status, err)
		}
	}
	if _, ran := h.counts(); ran != 3 {
		t.Fatalf("the worker ran %d tasks, want 3", ran)
	}
}

func TestARemoteAgentsChangesComingBackOnABranchOfferMergeWorktree(t *testing.T) {
	w := newNATSWorld(t)
	ctx, stop := context.WithCancel(context.Background())
	ready, served := make(chan struct{}), make(chan error, 1)
	go func() {
		served <- remote.Serve(ctx, remote.WorkerConfig{Options: w.opts, Name: "w1", Workspace: w.repo, Concurrency: 1,
			Ready: func() { close(ready) },
			Run: func(ctx context.Context, task remote.Task, dir string, prepare func() error, _ event.Sink) (*backend.Result, error) {
				if err := prepare(); err != nil {
					return nil, err
				}
				if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("from the worker\n"), 0o644); err != nil {
					return nil, err
				}
				return &backend.Result{Text: "wrote b.txt"}, nil
			}})
	}()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Error(err)
		}
	})
	<-ready
	lead := tools.NewSet()
	m := New(Config{SessionID: "s", Sink: &sink{}, MaxConcurrent: 1, Tools: tools.NewSet(), Remote: w.d, Workspace: w.repo})
	t.Cleanup(m.Close)
	Offer(m, lead)
	if lead.Offered("merge_worktree") {
		t.Fatal("merge_worktree is offered before any agent has a worktree")
	}
	task := spawnCall(t, m, 0)
	r, err := m.Wait(context.Background(), task)
	if err != nil || r.Status != lifecycle.Completed {
		t.Fatalf("the remote task ended %s (%v), want completed", r.Status, err)
	}
	if task.worktreePath() == "" {
		t.Fatal("the remote agent's changes did not come back on a worktree of their own")
	}
	if got, err := os.ReadFile(filepath.Join(task.worktreePath(), "b.txt")); err != nil || string(got) != "from the worker\n" {
		t.Fatalf("b.txt in the branch's worktree = %q (%v)", got, err)
	}
	if !lead.Offered("merge_worktree") {
		t.Fatal("merge_worktree is not offered once a remote agent's branch came back")
	}
	if lead.Offered("check_task") {
		t.Fatal("a sync remote task offered the background companions")
	}
}
