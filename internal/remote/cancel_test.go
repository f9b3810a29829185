package remote

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// A lead may cancel a task in the same instant it grants the claim (an
// interrupt as the fan-out starts), even before its publish of the task
// has returned: the worker must hear that cancel, not run on until the
// lead's heartbeat stops. Three races lost that cancel: the worker
// subscribed to it only after its claim was granted; the lead armed it
// only after its publish returned; and Run, woken by ctx's Done before
// ctx started its AfterFunc, stopped the func that would have sent it.
func TestACancelSentTheMomentTheClaimIsGrantedReachesTheWorker(t *testing.T) {
	srv, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "a\n"})
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	opts := Options{URL: srv.URL(), Heartbeat: time.Second}

	var mu sync.Mutex
	var logs []string
	logged := func(s string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, l := range logs {
			if strings.Contains(l, s) {
				return true
			}
		}
		return false
	}
	wctx, stopWorker := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- Serve(wctx, WorkerConfig{Options: opts, Name: "w1", Workspace: repo,
			Log: func(s string) { mu.Lock(); logs = append(logs, s); mu.Unlock() },
			Run: func(ctx context.Context, _ Task, _ string, _ func() error, _ event.Sink) (*backend.Result, error) {
				<-ctx.Done() // a long task: only a cancel ends it
				return nil, ctx.Err()
			}})
	}()
	defer func() {
		stopWorker()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()

	d, err := Dial(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const tasks = 5
	// Ended at the test's end too, so a lost cancel fails the test
	// instead of leaving the queued tasks' Runs waiting forever.
	all, stopAll := context.WithCancel(context.Background())
	var runs sync.WaitGroup
	defer func() {
		stopAll()
		runs.Wait()
	}()
	for i := range tasks {
		runs.Add(1)
		go func() {
			defer runs.Done()
			ctx, cancel := context.WithCancel(all)
			defer cancel()
			_, err := d.Run(ctx, Task{ID: "gp-" + string(rune('a'+i)), Commit: head, Prompt: "p"},
				Hooks{Claimed: func(string, int, string) { cancel() }})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v, want it cancelled", err)
			}
		}()
	}
	cancelled := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, l := range logs {
			if strings.Contains(l, "cancelled: cancelled by the lead") {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(10 * time.Second) // a lost cancel is never heard: the lead stays alive
	for cancelled() < tasks && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := cancelled(); n != tasks {
		mu.Lock()
		log := strings.Join(logs, "\n")
		mu.Unlock()
		t.Fatalf("%d of %d tasks cancelled by the lead; the worker's log:\n%s", n, tasks, log)
	}
	if logged("the lead stopped its heartbeat") {
		t.Error("a task ended only when the lead's heartbeat stopped")
	}
}
