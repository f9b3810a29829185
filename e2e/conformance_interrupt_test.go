//go:build unix

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
)

// commandRunning reports whether a live process's command line holds cmd.
func commandRunning(cmd string) bool {
	dir, _ := os.ReadDir("/proc")
	for _, d := range dir {
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), cmd) {
			return true
		}
	}
	return false
}

// interruptedRun is a run SIGINT stopped: its events, the model requests
// made before and after the signal.
type interruptedRun struct {
	evs           []event.Raw
	before, after []loopback.LogEntry
}

// interruptWhileSubagentSleeps runs the interrupt scenario on b (its
// sub-agent sync, or in the background): SIGINT goes to atomic once the
// sub-agent's sleep runs, atomic must exit 130, and the sleep must not
// outlive it.
func interruptWhileSubagentSleeps(t *testing.T, b conformBackend, background bool) interruptedRun {
	t.Helper()
	// A long command (Claude Code refuses a sleep) whose command line is
	// the run's own.
	sleep := fmt.Sprintf("timeout 91.%d", time.Now().UnixNano()%100000)
	srv := server(t, b.interruptScenario(sleep+" tail -f /dev/null", background))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	run := b.command(t, ctx, srv.URL(), "-p", "CONFORM-INT: hand the slow part to a sub-agent.", "--output-format", "stream-json",
		"--permission-mode", "bypassPermissions")
	var out, errb bytes.Buffer
	run.cmd.Stdout, run.cmd.Stderr = &out, &errb
	if err := run.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); !commandRunning(sleep); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = run.cmd.Process.Kill()
			_ = run.cmd.Wait()
			var rules []string
			for _, e := range srv.Log() {
				rules = append(rules, fmt.Sprintf("%s %s→%s %d", e.Path, e.Model, e.Rule, e.Status))
			}
			t.Fatalf("the sub-agent's %q never ran; stderr %q; requests %q; stdout %s", sleep, errb.String(), rules, out.String())
		}
	}
	time.Sleep(500 * time.Millisecond) // the CLI reports the running call
	n := len(srv.Log())
	_ = run.cmd.Process.Signal(syscall.SIGINT)
	err := run.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130; stderr %q", err, errb.String())
	}
	// Give a late request (a woken lead) time to come, then stop looking.
	time.Sleep(time.Second)
	log := srv.Log()
	for left := time.Now().Add(5 * time.Second); commandRunning(sleep) && time.Now().Before(left); {
		time.Sleep(50 * time.Millisecond)
	}
	if commandRunning(sleep) {
		t.Errorf("%q outlived the run", sleep)
	}
	return interruptedRun{evs: events(t, out.String()), before: log[:n], after: log[n:]}
}

func TestConformanceEveryToolCallClosesBeforeItsAgentEndsAlsoAfterAnInterrupt(t *testing.T) {
	eachBackend(t, func(t *testing.T, b conformBackend) {
		r := interruptWhileSubagentSleeps(t, b, false)
		checkToolCallsClose(t, r.evs)
	})
}

func TestConformanceAfterAnInterruptWithABackgroundSubagentRunningNoBackendMakesAnotherModelRequest(t *testing.T) {
	eachBackend(t, func(t *testing.T, b conformBackend) {
		r := interruptWhileSubagentSleeps(t, b, true)
		if len(r.before) == 0 {
			t.Fatal("no model request before the interrupt: the count after it proves nothing")
		}
		for _, e := range r.after {
			t.Errorf("model request %d after the interrupt: %s %s answered by %q", e.Seq, e.Method, e.Path, e.Rule)
		}
		seqs := statusesByAgent(t, r.evs)
		if len(seqs) != 1 {
			t.Errorf("agents %v, want the one background sub-agent", seqs)
		}
		for id, seq := range seqs {
			if seq[len(seq)-1] != lifecycle.Interrupted {
				t.Errorf("sub-agent %s ended %v, want interrupted", id, seq)
			}
		}
		checkToolCallsClose(t, r.evs)
	})
}

// checkToolCallsClose checks that every tool.start has its tool.complete
// (same agent, same call id), before its agent's subagent.complete, and
// the lead's before the run's complete.
func checkToolCallsClose(t *testing.T, evs []event.Raw) {
	t.Helper()
	type call struct{ agent, id string }
	open := map[call]int{} // → index of its tool.start
	ended := map[string]int{}
	sawSubBash := false
	for i, e := range evs {
		c := call{e.AgentID, e.ToolCallID}
		switch e.Type {
		case event.ToolStart:
			open[c] = i
			if e.AgentID != "lead" && e.AgentID != "" {
				sawSubBash = true
			}
		case event.ToolComplete:
			if _, ok := open[c]; !ok {
				if at, done := ended[e.AgentID]; done {
					t.Errorf("event %d: tool.complete of %s's call %s after its end (event %d)", i, e.AgentID, e.ToolCallID, at)
				} else {
					t.Errorf("event %d: tool.complete of %s's call %s that never started", i, e.AgentID, e.ToolCallID)
				}
			}
			delete(open, c)
		case event.SubagentComplete, event.Complete:
			agent := e.AgentID
			if e.Type == event.Complete {
				agent = "lead"
			}
			ended[agent] = i
			for oc, at := range open {
				if oc.agent == agent || (e.Type == event.Complete) {
					t.Errorf("event %d (%s of %s): %s's call %s (tool.start at event %d) never completed", i, e.Type, e.AgentID, oc.agent, oc.id, at)
					delete(open, oc)
				}
			}
		}
	}
	for oc, at := range open {
		t.Errorf("%s's call %s (tool.start at event %d) never completed", oc.agent, oc.id, at)
	}
	if !sawSubBash {
		t.Errorf("no sub-agent tool call in the stream: the check proves nothing")
	}
}
