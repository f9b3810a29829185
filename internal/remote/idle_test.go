//go:build unix

package remote

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// cpuTime is this process's user and system CPU so far.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Workers whose concurrency adds up past the consumer's 512 waiting pulls
// (the project's own benchmark runs 4 × 250) must idle quietly: before,
// each surplus slot's pull failed with "Exceeded MaxWaiting" and retried
// every 200 ms, about 600 failed pulls a second, a log line each, and a
// quarter of a core burnt with no task in sight. The server, the workers
// and this test share one process, so its CPU is theirs.
func TestFourWorkersOf250IdleWithoutFailedPullsOrCPU(t *testing.T) {
	const workers, concurrency, window = 4, 250, 3 * time.Second
	srv, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "a\n"})
	opts := Options{URL: srv.URL(), Heartbeat: time.Second}

	// Every pull a worker makes is a request on the consumer's next
	// subject: a plain subscriber there counts them.
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var pulls atomic.Int64
	sub, err := nc.Subscribe(fmt.Sprintf("$JS.API.CONSUMER.MSG.NEXT.%s.%s", Stream, Consumer), func(*nats.Msg) { pulls.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var logs []string
	ctx, stop := context.WithCancel(context.Background())
	var ready, served sync.WaitGroup
	for i := range workers {
		ready.Add(1)
		served.Add(1)
		go func() {
			defer served.Done()
			err := Serve(ctx, WorkerConfig{Options: opts, Name: fmt.Sprintf("w%d", i+1), Workspace: repo, Concurrency: concurrency,
				Ready: ready.Done,
				Log:   func(s string) { mu.Lock(); logs = append(logs, s); mu.Unlock() },
				Run: func(context.Context, Task, string, func() error, event.Sink) (*backend.Result, error) {
					return nil, fmt.Errorf("no task is sent in this test")
				}})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	defer func() {
		stop()
		served.Wait()
	}()
	ready.Wait()
	time.Sleep(500 * time.Millisecond) // past the start: every worker's first pulls are out

	mu.Lock()
	logs = nil
	mu.Unlock()
	pulls.Store(0)
	cpu0 := cpuTime(t)
	time.Sleep(window)
	cpu := cpuTime(t) - cpu0
	n := pulls.Load()
	mu.Lock()
	lines := append([]string(nil), logs...)
	mu.Unlock()

	t.Logf("idle %s: %d pulls, %d log lines, %s CPU", window, n, len(lines), cpu)
	if len(lines) > 0 {
		t.Errorf("the idle workers logged %d lines, first: %s", len(lines), lines[0])
	}
	for _, l := range lines {
		if strings.Contains(l, "MaxWaiting") {
			t.Errorf("a pull failed with MaxWaiting: %s", l)
			break
		}
	}
	// One pull a second a worker when idle, give or take the one under way.
	if limit := int64(workers * (int(window/time.Second) + 2)); n > limit {
		t.Errorf("%d pulls in %s, want at most %d (one a second a worker)", n, window, limit)
	}
	if limit := window / 20; cpu > limit { // 5% of one core
		t.Errorf("%s of CPU idling for %s, want under %s", cpu, window, limit)
	}
}
