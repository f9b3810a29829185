package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// workerRig is an embedded NATS server, a worker run on a clone with the
// loopback model of scenario, and a lead's dispatcher.
type workerRig struct {
	w    *Worker
	d    *remote.Dispatcher
	head string
}

func startWorkerRig(t *testing.T, scenario string, concurrency int) *workerRig {
	t.Helper()
	srv, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "a\n"})
	prov, _ := testkit.Model(t, scenario)
	gate, _ := permission.NewGate(permission.Options{Mode: permission.BypassPermissions})
	opts := remote.Options{URL: srv.URL(), Heartbeat: 200 * time.Millisecond}
	ready := make(chan struct{})
	w := StartWorker(context.Background(), WorkerConfig{
		Remote:   remote.WorkerConfig{Options: opts, Name: "w1", Workspace: repo, Concurrency: concurrency, Ready: func() { close(ready) }},
		Provider: prov, Workspace: tools.Workspace{Root: repo}, Gate: gate,
	})
	select {
	case <-ready:
	case <-w.Done():
		t.Fatalf("the worker stopped before it was ready: %v", w.Err())
	case <-time.After(20 * time.Second):
		t.Fatal("the worker is not ready after 20s")
	}
	d, err := remote.Dial(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return &workerRig{w: w, d: d, head: testkit.Git(t, repo, "rev-parse", "HEAD")}
}

const longTasks = `
rules:
  - {name: long, match: {first_user_contains: "<LONG>"}, respond: {text: "never in time", delay_ms: 60000}}
`

// Stop cancels every task through its owner and returns only once each
// task's lead has the word that the worker gave it back: a worker process
// that exits right after Stop leaves no lead waiting on its silence. The
// worker's own reducer has each task, run by the worker run, ended
// interrupted because the worker stopped.
func TestWorkerStopReturnsOnlyOnceEveryLeadHasTheWordThatItsTaskWasGivenBack(t *testing.T) {
	const n = 3
	r := startWorkerRig(t, longTasks, n)
	var claimed, givenBack atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	var runs sync.WaitGroup
	defer func() {
		cancel() // the tasks wait in the queue for another worker: the lead gives up on them
		runs.Wait()
	}()
	for i := range n {
		runs.Add(1)
		go func() {
			defer runs.Done()
			_, err := r.d.Run(ctx, remote.Task{ID: fmt.Sprintf("gp-%d", i), Commit: r.head, Prompt: "<LONG> take your time"},
				remote.Hooks{
					Claimed:   func(string, int, string) { claimed.Add(1) },
					GivenBack: func(worker string) { givenBack.Add(1) },
				})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v, want it waiting for another worker until cancelled", err)
			}
		}()
	}
	testkit.WaitFor(t, 20*time.Second, "the worker to run every task", func() bool {
		if claimed.Load() != n || len(r.w.Running()) != n {
			return false
		}
		// A task is running before its agent's start reaches the bus.
		for _, key := range r.w.Running() {
			if _, ok := r.w.Bus().Agent(key); !ok {
				return false
			}
		}
		return true
	})
	for _, key := range r.w.Running() {
		if rec, ok := r.w.Bus().Agent(key); !ok || rec.Status != lifecycle.Running || rec.Worker != "w1" {
			t.Errorf("%s: record %+v, want running on w1", key, rec)
		}
	}

	if err := r.w.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if got := givenBack.Load(); got != n {
		t.Fatalf("when Stop returned, %d of %d leads had the word that their task was given back", got, n)
	}
	if left := r.w.Running(); len(left) != 0 {
		t.Errorf("still running after Stop: %v", left)
	}
	keys := r.w.Owners().IDs()
	slices.Sort(keys)
	for i, key := range keys {
		if want := r.d.ID() + fmt.Sprintf(".gp-%d", i); key != want {
			t.Errorf("task %d registered as %q, want %q (lead.task)", i, key, want)
		}
		if o, err := r.w.Owners().Lookup(key); err != nil || o.Kind != bus.OwnerWorker {
			t.Errorf("%s: owner %v (%v), want the worker run", key, o, err)
		}
		rec, _ := r.w.Bus().Agent(key)
		if rec.Status != lifecycle.Interrupted || rec.Error != remote.ErrStopping.Error() {
			t.Errorf("%s: %s %q, want interrupted because the worker stopped", key, rec.Status, rec.Error)
		}
	}
	if len(keys) != n {
		t.Errorf("%d tasks registered, want %d", len(keys), n)
	}
	if err := r.w.Err(); err != nil {
		t.Errorf("Err after Stop = %v", err)
	}
}

// A task the worker takes while it stops is not run: it goes back to the
// queue at once, its lead told, and the worker's reducer never sees it.
func TestAWorkerThatIsStoppingRunsNoNewTask(t *testing.T) {
	r := startWorkerRig(t, longTasks, 1)
	if err := r.w.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	out, err := r.w.run(context.Background(), remote.Task{Lead: "l", ID: "late"}, t.TempDir(), func() error { return nil }, event.Discard)
	if !errors.Is(err, remote.ErrStopping) || out != nil {
		t.Fatalf("run = %v, %v; want ErrStopping", out, err)
	}
	if ids := r.w.Owners().IDs(); len(ids) != 0 {
		t.Errorf("registered %v", ids)
	}
	if recs := r.w.Bus().Agents(); len(recs) != 0 {
		t.Errorf("the reducer has %+v", recs)
	}
}
