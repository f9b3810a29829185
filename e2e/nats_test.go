package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// checkFanOut asserts a run of natsFanOut(n) over workers: every
// sub-agent completed once with its own result, every subagent.start
// and subagent.update names a worker, each worker ran some, and the
// lead's complete came once, last.
func checkFanOut(t *testing.T, out string, n int, workers []*workerProc) {
	t.Helper()
	evs := events(t, out)
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

func TestThirtySubagentsSpreadOverThreeWorkerProcessesAllCompleteOnce(t *testing.T) {
	srv := server(t, natsFanOut(30, 150))
	url := natsServer(t)
	repo, clones := leadRepo(t, 3)
	var workers []*workerProc
	for i, c := range clones {
		workers = append(workers, startWorker(t, url, srv, c, fmt.Sprintf("worker-%c", 'a'+i), 4))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := runCmd(t, lead(t, ctx, srv, repo, url, "--max-subagents", "30", "-p", "fan out"))
	if r.code != 0 {
		t.Fatalf("lead exited %d: %s\n%s\n%s", r.code, r.stderr, tail(r.stdout, 3000), logs(workers))
	}
	checkFanOut(t, r.stdout, 30, workers)
	// The workers' model requests came with the workers' key, not the lead's.
	for _, e := range srv.Log() {
		if strings.HasPrefix(e.Rule, "sub-") && e.Model != "worker-model" {
			t.Fatalf("sub-agent request %s used model %q, want the worker's", e.Rule, e.Model)
		}
	}
	for _, w := range workers {
		if got := testkit.Git(t, w.clone, "worktree", "list"); strings.Count(got, "\n") != 0 {
			t.Errorf("worker %s left worktrees:\n%s", w.name, got)
		}
	}
}

// tail is the end of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// logs is every worker's log.
func logs(ws []*workerProc) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString("--- " + w.name + "\n" + w.log() + "\n")
	}
	return b.String()
}
