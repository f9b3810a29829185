//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// checkFanOut asserts a run of natsFanOut(n) over workers: every
// sub-agent completed once with its own result, every subagent.start
// and subagent.update names a worker, each worker ran some, and the
// lead's complete came once, last.
func checkFanOut(t *testing.T, evs []event.Raw, n int, workers []*workerProc) {
	t.Helper()
	byWorker := map[string]int{}
	for _, e := range evs {
		switch e.Type {
		case event.SubagentStart:
			d := data[event.SubagentStartData](t, e)
			if d.Worker == "" {
				t.Errorf("subagent.start of %s names no worker", e.AgentID)
			}
			byWorker[d.Worker]++
		case event.SubagentUpdate:
			if d := data[event.SubagentUpdateData](t, e); d.Worker == "" {
				t.Errorf("subagent.update of %s names no worker: %+v", e.AgentID, d)
			}
		}
	}
	done := completes(t, evs)
	if len(done) != n {
		t.Fatalf("%d sub-agents completed, want %d", len(done), n)
	}
	results := map[string]bool{}
	for id, cs := range done {
		if len(cs) != 1 || !cs[0].Success {
			t.Errorf("%s: subagent.complete %+v, want one success", id, cs)
			continue
		}
		results[cs[0].Result] = true
	}
	for i := range n {
		if !results[fmt.Sprintf("result %d", i)] {
			t.Errorf("no sub-agent returned result %d", i)
		}
	}
	for _, w := range workers {
		if byWorker[w.name] == 0 {
			t.Errorf("worker %s ran none of the %d tasks (%v)", w.name, n, byWorker)
		}
	}
	st := replay(evs, func(int, event.Raw, *lifecycle.State) {})
	for _, r := range st.Records() {
		if r.Status != lifecycle.Completed || r.Worker == "" {
			t.Errorf("%s: status %s worker %q, want completed on a worker", r.ID, r.Status, r.Worker)
		}
	}
	var completes []int
	for i, e := range evs {
		if e.Type == event.Complete {
			completes = append(completes, i)
		}
	}
	if len(completes) != 1 || completes[0] != len(evs)-1 {
		t.Errorf("complete at %v of %d events, want once, last", completes, len(evs))
	}
}

// noWorktrees fails t when a worker left a worktree in its clone.
func noWorktrees(t *testing.T, ws []*workerProc) {
	t.Helper()
	for _, w := range ws {
		if got := testkit.Git(t, w.clone, "worktree", "list"); strings.Count(got, "\n") != 0 {
			t.Errorf("worker %s left worktrees:\n%s", w.name, got)
		}
	}
}

// completeOf is the one subagent.complete of agent id.
func completeOf(t *testing.T, evs []event.Raw, id string) event.SubagentCompleteData {
	t.Helper()
	c := completes(t, evs)[id]
	if len(c) != 1 {
		t.Fatalf("%s: %d subagent.complete events, want 1: %+v", id, len(c), c)
	}
	return c[0]
}

func TestThirtySubagentsSpreadOverThreeWorkerProcessesAllCompleteOnce(t *testing.T) {
	r := newRig(t, natsFanOut(30, 150), 3)
	for i := range 3 {
		r.worker(t, i, 4)
	}
	evs := r.start(t, "--max-subagents", "30", "-p", "fan out").wait(t, r)
	checkFanOut(t, evs, 30, r.workers)
	// The workers' model requests came with the workers' settings.
	for _, e := range r.srv.Log() {
		if strings.HasPrefix(e.Rule, "sub-") && e.Model != "worker-model" {
			t.Fatalf("sub-agent request %s used model %q, want the worker's", e.Rule, e.Model)
		}
	}
	noWorktrees(t, r.workers)
}

func TestThirtySubagentsOverAThreeNodeClusterWithAWorkerOnEachNode(t *testing.T) {
	r := newRig(t, natsFanOut(30, 150), 3)
	urls := natsCluster(t)
	for i := range 3 {
		// Each worker knows one node first; the lead another.
		r.url = strings.Join(append(urls[i:], urls[:i]...), ",")
		r.worker(t, i, 4, "--nats-replicas", "3")
	}
	r.url = urls[2]
	evs := r.start(t, "--nats-replicas", "3", "--max-subagents", "30", "-p", "fan out").wait(t, r)
	checkFanOut(t, evs, 30, r.workers)
}

func TestKill9OfAWorkerMidTaskRestartsItsTasksOnTheOthersAndCompleteComesOnceAtTheEnd(t *testing.T) {
	r := newRig(t, natsFanOut(9, 1500), 3)
	for i := range 3 {
		r.worker(t, i, 2)
	}
	l := r.start(t, "--max-subagents", "9", "-p", "fan out")
	victim := r.workers[0]
	testkit.WaitFor(t, 20*time.Second, "worker-a to start a task", func() bool { return victim.count(": started (") > 0 })
	victim.kill9(t)
	evs := l.wait(t, r)
	checkFanOut(t, evs, 9, r.workers)
	onVictim := map[string]bool{}
	restarted := map[string]string{}
	for _, e := range evs {
		switch e.Type {
		case event.SubagentStart:
			if data[event.SubagentStartData](t, e).Worker == victim.name {
				onVictim[e.AgentID] = true
			}
		case event.SubagentUpdate:
			if d := data[event.SubagentUpdateData](t, e); strings.HasPrefix(d.Note, "restarted on ") {
				restarted[e.AgentID] = d.Worker
			}
		}
	}
	if len(onVictim) == 0 {
		t.Fatal("no task was announced on the killed worker")
	}
	st := replay(evs, func(int, event.Raw, *lifecycle.State) {})
	for id := range onVictim {
		if w, ok := restarted[id]; !ok || w == victim.name {
			t.Errorf("%s ran on the killed worker: restarted on %q, want another worker", id, w)
		}
		if rec, _ := st.Get(id); !strings.HasPrefix(rec.Note, "restarted on ") {
			t.Errorf("%s's row says %q, want restarted on …", id, rec.Note)
		}
	}
}

func TestKill9OfTheLeadLeavesEveryWorkerIdleWithinTenSecondsAndNoWorktree(t *testing.T) {
	r := newRig(t, natsFanOut(6, 60000), 3)
	for i := range 3 {
		r.worker(t, i, 2)
	}
	l := r.start(t, "--max-subagents", "6", "-p", "fan out")
	started := func() int {
		n := 0
		for _, w := range r.workers {
			n += w.count(": started (")
		}
		return n
	}
	testkit.WaitFor(t, 20*time.Second, "the workers to start the 6 tasks", func() bool { return started() == 6 })
	if err := l.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = l.cmd.Wait()
	killed := time.Now()
	testkit.WaitFor(t, 10*time.Second, "every worker idle", func() bool {
		for _, w := range r.workers {
			if !w.idle() {
				return false
			}
		}
		return true
	})
	t.Logf("workers idle %s after the lead's kill -9", time.Since(killed).Round(time.Millisecond))
	noWorktrees(t, r.workers)
	for _, w := range r.workers {
		if n := w.count("cancelled: the lead stopped its heartbeat"); n == 0 {
			t.Errorf("worker %s: no task cancelled for the lead's silence:\n%s", w.name, w.log())
		}
		if kids := children(w.cmd.Process.Pid); len(kids) != 0 {
			t.Errorf("worker %s left child processes %v", w.name, kids)
		}
		select {
		case <-w.done:
			t.Errorf("worker %s exited; it should wait for the next lead", w.name)
		default:
		}
	}
}

func TestInterruptingTheLeadCancelsItsTasksOnTheWorkers(t *testing.T) {
	r := newRig(t, natsFanOut(2, 60000), 1)
	w := r.worker(t, 0, 2)
	l := r.start(t, "-p", "fan out")
	testkit.WaitFor(t, 20*time.Second, "both tasks started", func() bool { return w.count(": started (") == 2 })
	if err := l.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = l.cmd.Wait()
	testkit.WaitFor(t, 5*time.Second, "both tasks cancelled", w.idle)
	if n := w.count("cancelled: cancelled by the lead"); n != 2 {
		t.Fatalf("%d tasks cancelled by the lead, want 2:\n%s\nlead: %s", n, w.log(), l.errb.String())
	}
}

func TestATaskWhoseCommitNoWorkerHasEndsInAnErrorNamingTheCommit(t *testing.T) {
	r := newRig(t, natsFanOut(1, 10), 1)
	r.worker(t, 0, 1)
	testkit.WriteFiles(t, r.repo, map[string]string{"new.go": "package main\n"})
	testkit.Git(t, r.repo, "add", "-A")
	testkit.Git(t, r.repo, "commit", "-q", "-m", "not pushed")
	head := testkit.Git(t, r.repo, "rev-parse", "HEAD")
	evs := r.start(t, "-p", "fan out").wait(t, r)
	if c := completeOf(t, evs, "general-purpose-1"); c.Success || !strings.Contains(c.Error, "commit "+head+" is not in worker worker-a's repository") {
		t.Fatalf("subagent.complete = %+v, want an error naming commit %s", c, head)
	}
	if n := len(loopback.ByRule(r.srv.Log(), "sub-000")); n != 0 {
		t.Errorf("the sub-agent ran %d model requests on other code", n)
	}
}

func TestATaskWhoseWorkersKeepDyingEndsInAnErrorAfterTheAttemptsAllowed(t *testing.T) {
	r := newRig(t, natsFanOut(1, 60000), 2)
	first := r.worker(t, 0, 1)
	l := r.start(t, "--nats-attempts", "1", "-p", "fan out")
	testkit.WaitFor(t, 20*time.Second, "worker-a to start the task", func() bool { return first.count(": started (") == 1 })
	r.worker(t, 1, 1)
	first.kill9(t)
	if c := completeOf(t, l.wait(t, r), "general-purpose-1"); c.Success || !strings.Contains(c.Error, "gave up after 1 attempts") {
		t.Fatalf("subagent.complete = %+v, want an error saying it gave up after 1 attempt", c)
	}
}

func TestAWorkerCutOffFromTheLeadShowsAsWaitingThenEndsInAClearError(t *testing.T) {
	r := newRig(t, natsFanOut(1, 60000), 1)
	w := r.worker(t, 0, 1)
	l := r.start(t, "-p", "fan out")
	testkit.WaitFor(t, 20*time.Second, "worker-a to start the task", func() bool { return w.count(": started (") == 1 })
	// A stopped process sends nothing: to the lead it is a partition.
	if err := w.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.cmd.Process.Signal(syscall.SIGCONT) })
	evs := l.wait(t, r)
	waited := false
	for _, e := range evs {
		if e.Type == event.SubagentUpdate && strings.HasPrefix(data[event.SubagentUpdateData](t, e).Note, "waiting for worker-a: no word for") {
			waited = true
		}
	}
	if !waited {
		t.Error("the row never said it was waiting for worker-a")
	}
	if c := completeOf(t, evs, "general-purpose-1"); c.Success || !strings.Contains(c.Error, "lost worker worker-a") {
		t.Fatalf("subagent.complete = %+v, want an error saying worker-a was lost", c)
	}
}

// The call asks for a worktree: a worker gives it one; the lead makes none
// of its own beside the branch the changes come back on.
func TestARemoteAgentSeesTheLeadsUncommittedChangesAndItsOwnComeBackAsABranch(t *testing.T) {
	r := newRig(t, `
rules:
  - {name: lead-final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "all reported"}}
  - name: lead-fanout
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "write the notes", prompt: "<EDIT> write out.txt", isolation: worktree}}
  - {name: sub-done, match: {system_contains: "You are a sub-agent", has_tool_results: true}, respond: {text: "wrote it"}}
  - name: sub-edit
    match: {system_contains: "You are a sub-agent", first_user_contains: "<EDIT>"}
    respond:
      tool_calls:
        - {name: read, input: {file_path: "draft.txt"}}
        - {name: write, input: {file_path: "out.txt", content: "from the worker\n"}}
`, 1)
	r.worker(t, 0, 1, "--permission-mode", "acceptEdits")
	testkit.WriteFiles(t, r.repo, map[string]string{"draft.txt": "lead draft, not committed\n"})
	evs := r.start(t, "-p", "fan out").wait(t, r)
	done := loopback.ByRule(r.srv.Log(), "sub-done")
	if len(done) != 1 {
		t.Fatalf("sub-done requests: %d", len(done))
	}
	if res := done[0].LastToolResults(); len(res) != 2 || !strings.Contains(res[0].Content, "lead draft, not committed") {
		t.Fatalf("the worker's agent did not read the lead's uncommitted file: %+v", res)
	}
	if c := completeOf(t, evs, "general-purpose-1"); !c.Success || !strings.Contains(c.Result, "branch atomic/general-purpose-1") {
		t.Fatalf("subagent.complete = %+v, want success naming its branch", c)
	}
	if got := testkit.Git(t, r.repo, "show", "atomic/general-purpose-1:out.txt"); got != "from the worker" {
		t.Errorf("out.txt on the branch = %q", got)
	}
	if _, err := os.Stat(filepath.Join(r.repo, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("the agent's file reached the lead's tree before a merge: %v", err)
	}
	noWorktrees(t, r.workers)
}

func TestATaskSentAfterTheLeadEditedAFileCarriesTheEdit(t *testing.T) {
	r := newRig(t, `
rules:
  - {name: lead-final, match: {system_contains: "You are Atomic", tool_result_contains: "saw it"}, respond: {text: "all reported"}}
  - name: lead-task
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond:
      tool_calls:
        - {name: task, input: {description: "read the fresh file", prompt: "<READ> read fresh.txt"}}
  - name: lead-write
    match: {system_contains: "You are Atomic"}
    respond:
      delay_ms: 300
      tool_calls:
        - {name: write, input: {file_path: "fresh.txt", content: "written by the lead just now\n"}}
  - {name: sub-done, match: {system_contains: "You are a sub-agent", has_tool_results: true}, respond: {text: "saw it"}}
  - name: sub-read
    match: {system_contains: "You are a sub-agent", first_user_contains: "<READ>"}
    respond:
      tool_calls:
        - {name: read, input: {file_path: "fresh.txt"}}
`, 1)
	r.worker(t, 0, 1)
	r.start(t, "--permission-mode", "acceptEdits", "-p", "write then delegate").wait(t, r)
	done := loopback.ByRule(r.srv.Log(), "sub-done")
	if len(done) != 1 {
		t.Fatalf("sub-done requests: %d\n%s", len(done), logs(r.workers))
	}
	if res := done[0].LastToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "written by the lead just now") {
		t.Fatalf("the worker's agent did not see the lead's fresh edit: %+v", res)
	}
}

// children lists the child processes of pid.
func children(pid int) []string {
	var out []string
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

func TestATaskWhoseCommitOneWorkerLacksRunsOnAWorkerThatHasIt(t *testing.T) {
	r := newRig(t, natsFanOut(4, 10), 2)
	testkit.WriteFiles(t, r.repo, map[string]string{"new.go": "package main\n"})
	testkit.Git(t, r.repo, "add", "-A")
	testkit.Git(t, r.repo, "commit", "-q", "-m", "pushed to one worker only")
	testkit.Git(t, r.clones[1], "pull", "-q")
	r.worker(t, 0, 2)
	has := r.worker(t, 1, 2)
	evs := r.start(t, "-p", "fan out").wait(t, r)
	for id, c := range completes(t, evs) {
		if len(c) != 1 || !c[0].Success {
			t.Errorf("%s: %+v, want one success", id, c)
		}
	}
	if n := has.count(": finished (success true)"); n != 4 {
		t.Errorf("the worker with the commit finished %d tasks, want all 4:\n%s", n, logs(r.workers))
	}
}
