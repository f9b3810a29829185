package remote

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// A worker that stops gives its task back and says so: the lead does not
// end the task, nor wait on the stopped worker's silence (ten heartbeats
// and it would call it lost); it waits for the next worker as long as it
// takes, whose claim replaces the stopped attempt.
func TestAStoppedWorkersWordPutsTheTaskBackInLineWithoutEndingIt(t *testing.T) {
	srv, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const hb = 50 * time.Millisecond
	d, err := Dial(context.Background(), Options{URL: srv.URL(), Heartbeat: hb})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()

	var mu sync.Mutex
	var seen []string
	note := func(s string) { mu.Lock(); seen = append(seen, s); mu.Unlock() }
	type outcome struct {
		r   Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := d.Run(context.Background(), Task{ID: "gp-1", Commit: "c0ffee", Prompt: "p"}, Hooks{
			Claimed:   func(worker string, _ int, before string) { note("claimed " + before + ">" + worker) },
			GivenBack: func(worker string) { note("given back by " + worker) },
			Note:      func(n string) { note("note " + n) },
		})
		done <- outcome{r, err}
	}()
	w := wire{t: t, nc: nc, lead: d.ID()}
	for d.flight("gp-1") == nil {
		time.Sleep(time.Millisecond)
	}
	if r := w.request("claim", Claim{Task: "gp-1", Attempt: 1, Worker: "w1"}); !r.Go {
		t.Fatalf("claim refused: %s", r.Reason)
	}
	if r := w.request("result", Result{Task: "gp-1", Attempt: 1, Worker: "w1", Stopped: true, Error: "worker w1 stopped"}); !r.Go {
		t.Fatal("the stopped worker's word was refused")
	}
	mu.Lock()
	told := len(seen) == 2 && seen[1] == "given back by w1"
	mu.Unlock()
	if !told {
		t.Fatalf("hooks seen when the worker had its answer: %v, want the task given back by w1", seen)
	}
	select {
	case out := <-done:
		t.Fatalf("Run ended with %+v, %v; want it waiting for another worker", out.r, out.err)
	case <-time.After(15 * hb):
	}
	if r := w.request("result", Result{Task: "gp-1", Attempt: 1, Worker: "w1", Stopped: true}); r.Go {
		t.Error("the word was taken twice")
	}
	if r := w.request("claim", Claim{Task: "gp-1", Attempt: 2, Worker: "w2"}); !r.Go {
		t.Fatalf("the next worker's claim refused: %s", r.Reason)
	}
	if r := w.request("result", Result{Task: "gp-1", Attempt: 2, Worker: "w2", Success: true, Text: "done"}); !r.Go {
		t.Fatal("the next worker's result was refused")
	}
	out := <-done
	if out.err != nil || out.r.Text != "done" || out.r.Worker != "w2" {
		t.Fatalf("Run = %+v, %v; want w2's result", out.r, out.err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"claimed >w1", "given back by w1", "claimed w1>w2"}
	if len(seen) != len(want) {
		t.Fatalf("hooks seen %v, want %v (no note of a silent worker)", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("hooks seen %v, want %v", seen, want)
		}
	}
}

// On a task's last attempt a stopping worker does not give it back for
// nobody: it ends it, naming why, as the next worker would.
func TestAWorkerStoppingOnTheLastAttemptEndsTheTaskSayingWhy(t *testing.T) {
	srv, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "a\n"})
	opts := Options{URL: srv.URL(), Heartbeat: 200 * time.Millisecond, MaxAttempts: 1}
	stop := make(chan struct{})
	started := make(chan struct{})
	wctx, endServe := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- Serve(wctx, WorkerConfig{Options: opts, Name: "w1", Workspace: repo,
			Run: func(context.Context, Task, string, func() error, event.Sink) (*backend.Result, error) {
				close(started)
				<-stop // its owner stops it
				return nil, fmt.Errorf("task ended: %w", ErrStopping)
			}})
	}()
	d, err := Dial(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	done := make(chan Result, 1)
	go func() {
		r, err := d.Run(context.Background(), Task{ID: "gp-1", Commit: testkit.Git(t, repo, "rev-parse", "HEAD"), Prompt: "p"}, Hooks{})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	<-started
	endServe()
	close(stop)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.Success || !r.GaveUp || r.Error != "gave up after 1 attempts: worker w1 stopped before finishing it" {
			t.Fatalf("Run = %+v, want the task ended because w1 stopped on its last attempt", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lead still waits for the task after its worker stopped on the last attempt")
	}
}
