//go:build unix

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// natsHeartbeat is the tests' heartbeat: a dead worker's task is given to
// another after three of them.
const natsHeartbeat = "300ms"

// natsServer starts an embedded NATS server with JetStream for the test.
func natsServer(t testing.TB) string {
	t.Helper()
	s, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.URL()
}

// natsCluster starts three embedded NATS servers with JetStream routed
// into one cluster on loopback and returns their client URLs.
func natsCluster(t testing.TB) []string {
	t.Helper()
	ports := freePorts(t, 3)
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	servers := make([]*embedded.Server, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i], errs[i] = embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir(),
				Name: fmt.Sprintf("n%d", i+1), Cluster: "atomic-test", ClusterListen: fmt.Sprintf("127.0.0.1:%d", ports[i]),
				Routes: routes})
		}()
	}
	wg.Wait()
	var urls []string
	for i, s := range servers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		t.Cleanup(s.Close)
		urls = append(urls, s.URL())
	}
	return urls
}

// freePorts finds n free loopback ports.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l.Addr().(*net.TCPAddr).Port)
		l.Close()
	}
	return out
}

// workerProc is one `atomic worker` process of the real binary.
type workerProc struct {
	name  string
	cmd   *exec.Cmd
	clone string

	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

// startWorker starts `atomic worker` against srv's model in clone, and
// waits for its ready line. It runs as one process (no supervisor) so
// that kill -9 kills the worker itself.
func startWorker(t testing.TB, natsURL string, srv *loopback.Server, clone, name string, concurrency int, extra ...string) *workerProc {
	t.Helper()
	home := t.TempDir()
	args := append([]string{"worker", "--nats", natsURL, "--workspace", clone, "--name", name,
		"--concurrency", fmt.Sprint(concurrency), "--nats-heartbeat", natsHeartbeat,
		"--provider", "anthropic", "--model", "worker-model", "--base-url", srv.URL()}, extra...)
	cmd := exec.Command(binary, args...)
	cmd.Dir = clone
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "ANTHROPIC_API_KEY=worker-key", "ATOMIC_SINGLE_PROCESS=1"}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{name: name, cmd: cmd, clone: clone, done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, sc.Text())
			w.mu.Unlock()
			if sc.Text() == "worker "+name+" ready" {
				once.Do(func() { close(ready) })
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-w.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-w.done
		}
	})
	select {
	case <-ready:
	case <-w.done:
		t.Fatalf("worker %s exited before it was ready:\n%s", name, w.log())
	case <-time.After(20 * time.Second):
		t.Fatalf("worker %s not ready after 20s:\n%s", name, w.log())
	}
	return w
}

func (w *workerProc) log() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

// count counts the worker's log lines containing s.
func (w *workerProc) count(s string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, l := range w.lines {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// idle reports whether every task the worker started has ended.
func (w *workerProc) idle() bool {
	return w.count(": started (attempt") == w.count(": finished (")+w.count(": cancelled: ")+w.count(": given back")
}

// kill9 kills the worker process outright.
func (w *workerProc) kill9(t testing.TB) {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-w.done
}

// leadRepo is the lead's repository, and clones of it for n workers.
func leadRepo(t testing.TB, n int) (string, []string) {
	t.Helper()
	repo := testkit.GitRepo(t, map[string]string{"README.md": "# project\n", "main.go": "package main\n"})
	var clones []string
	for range n {
		dir := filepath.Join(t.TempDir(), "clone")
		testkit.Git(t, repo, "clone", "-q", repo, dir)
		clones = append(clones, dir)
	}
	return repo, clones
}

// natsFanOut: the lead asks for n tasks in one message; sub-agent i
// answers "result i" after delayMS.
func natsFanOut(n, delayMS int) string {
	var b strings.Builder
	b.WriteString("rules:\n")
	b.WriteString("  - {name: lead-final, match: {system_contains: \"You are Atomic\", has_tool_results: true}, respond: {text: \"all reported\"}}\n")
	b.WriteString("  - name: lead-fanout\n    match: {system_contains: \"You are Atomic\"}\n    respond:\n      tool_calls:\n")
	for i := range n {
		fmt.Fprintf(&b, "        - {name: task, input: {description: \"part %d\", prompt: \"<TASK-%03d> do it\"}}\n", i, i)
	}
	for i := range n {
		fmt.Fprintf(&b, "  - {name: sub-%03d, match: {system_contains: \"You are a sub-agent\", first_user_contains: \"<TASK-%03d>\"}, respond: {text: \"result %d\", delay_ms: %d}}\n", i, i, i, delayMS)
	}
	return b.String()
}

// lead runs `atomic run` with --nats in repo and returns the process's
// result (its stdout is stream-json).
func lead(t testing.TB, ctx context.Context, srv *loopback.Server, repo, natsURL string, args ...string) *exec.Cmd {
	t.Helper()
	full := append([]string{"--nats", natsURL, "--nats-heartbeat", natsHeartbeat, "--output-format", "stream-json"}, args...)
	cmd := command(t, ctx, srv, "anthropic", repo, full...)
	cmd.Env = append(cmd.Env, "ATOMIC_SINGLE_PROCESS=1")
	return cmd
}

// completes returns the subagent.complete events by agent.
func completes(t *testing.T, evs []event.Raw) map[string][]event.SubagentCompleteData {
	out := map[string][]event.SubagentCompleteData{}
	for _, e := range evs {
		if e.Type == event.SubagentComplete {
			out[e.AgentID] = append(out[e.AgentID], data[event.SubagentCompleteData](t, e))
		}
	}
	return out
}

// rig is one test's world: the loopback model, a NATS server, the lead's
// repository and worker processes on clones of it (worker-a, worker-b, …).
type rig struct {
	srv     *loopback.Server
	url     string
	repo    string
	clones  []string
	workers []*workerProc
}

// newRig starts the model on scenario, an embedded NATS server and n
// clones of a fresh repository; workers are started with (*rig).worker.
func newRig(t testing.TB, scenario string, n int) *rig {
	t.Helper()
	repo, clones := leadRepo(t, n)
	return &rig{srv: server(t, scenario), url: natsServer(t), repo: repo, clones: clones}
}

// worker starts the worker on clone i, named worker-<letter i>.
func (r *rig) worker(t testing.TB, i, concurrency int, extra ...string) *workerProc {
	t.Helper()
	w := startWorker(t, r.url, r.srv, r.clones[i], fmt.Sprintf("worker-%c", 'a'+i), concurrency, extra...)
	r.workers = append(r.workers, w)
	return w
}

// leadProc is a started `atomic run --nats` process.
type leadProc struct {
	cmd       *exec.Cmd
	out, errb strings.Builder
}

// start starts the lead in the rig's repository (stream-json output).
func (r *rig) start(t *testing.T, args ...string) *leadProc {
	t.Helper()
	l := &leadProc{cmd: lead(t, t.Context(), r.srv, r.repo, r.url, args...)}
	l.cmd.Stdout, l.cmd.Stderr = &l.out, &l.errb
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return l
}

// wait waits for the lead to exit 0 and returns its events.
func (l *leadProc) wait(t *testing.T, r *rig) []event.Raw {
	t.Helper()
	if err := l.cmd.Wait(); err != nil {
		t.Fatalf("lead: %v: %s\n%s", err, l.errb.String(), logs(r.workers))
	}
	return events(t, l.out.String())
}

// logs is every worker's log.
func logs(ws []*workerProc) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString("--- " + w.name + "\n" + w.log() + "\n")
	}
	return b.String()
}
