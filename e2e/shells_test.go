//go:build unix

package e2e

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
)

func TestABackgroundShellsExitWakesTheLeadWithItsOutputAndTheRunCompletesAfterIt(t *testing.T) {
	srv := server(t, `
rules:
  - name: woken
    match: {last_user_contains: "shell-notification"}
    respond: {text: "the shell said done"}
  - name: started
    match: {has_tool_results: true}
    respond: {text: "started it; I will be told"}
  - name: lead
    respond:
      tool_calls:
        - {name: bash, input: {command: "sleep 1; echo done", run_in_background: true}}
`)
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "go", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	start := index(evs, func(e event.Raw) bool { return e.Type == event.ShellStart })
	end := index(evs, func(e event.Raw) bool { return e.Type == event.ShellEnd })
	firstTurn := index(evs, func(e event.Raw) bool { return e.Type == event.TurnEnd })
	woken := index(evs, func(e event.Raw) bool { return e.Type == event.TurnEnd && data[event.TurnEndData](t, e).Woken })
	if start < 0 || firstTurn < start || end < firstTurn || woken < end {
		t.Fatalf("want shell.start, the lead's turn.end, shell.end, then a woken turn: %d %d %d %d", start, firstTurn, end, woken)
	}
	if s := evs[start]; s.AgentID != "shell-1" || s.ParentAgentID != event.LeadID || data[event.ShellStartData](t, s).Command != "sleep 1; echo done" {
		t.Fatalf("shell.start = %+v", s)
	}
	if d := data[event.ShellEndData](t, evs[end]); d.ExitCode != 0 || d.Interrupted || d.Tail != "done\n" {
		t.Fatalf("shell.end = %+v", d)
	}
	var completes []int
	for i, e := range evs {
		if e.Type == event.Complete {
			completes = append(completes, i)
		}
		if e.Type == event.AgentStatus && e.AgentID == "shell-1" {
			rec := data[lifecycle.StatusData](t, e).Agent
			if !rec.IsShell() || rec.ParentID != event.LeadID {
				t.Fatalf("the shell's record: %+v", rec)
			}
		}
	}
	if len(completes) != 1 || completes[0] != len(evs)-1 || completes[0] < woken {
		t.Fatalf("complete at %v of %d events, want once, last, after the woken turn %d", completes, len(evs), woken)
	}
	if got := data[event.CompleteData](t, evs[completes[0]]).Result; got != "the shell said done" {
		t.Fatalf("result %q", got)
	}
	wake := loopback.ByRule(srv.Log(), "woken")
	if len(wake) != 1 {
		t.Fatalf("the lead was woken %d times, want once", len(wake))
	}
	for _, w := range []string{"Background shell shell-1 (sleep 1; echo done) exited with status 0.", "done"} {
		if !strings.Contains(wake[0].LastUserText(), w) {
			t.Errorf("the wake-up %q lacks %q", wake[0].LastUserText(), w)
		}
	}
}

func TestAnInterruptStopsABackgroundShellAndEverythingItStartedAndShowsItInterrupted(t *testing.T) {
	srv := server(t, `
rules:
  - name: started
    match: {has_tool_results: true}
    respond: {text: "started it"}
  - name: lead
    respond:
      tool_calls:
        - {name: bash, input: {command: "echo $$ > pids; sleep 300 & echo $! >> pids; sleep 301", run_in_background: true}}
`)
	ws := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", ws, "-p", "go", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outc := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(stdout)
		outc <- string(b)
	}()
	pids := waitForPIDs(t, filepath.Join(ws, "pids"), 2)
	pgid := pids[0] // the shell's bash leads its own group
	if err := syscall.Kill(-pgid, 0); err != nil {
		t.Fatalf("the shell's group is not there: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // the lead's turn has ended: the shell runs on its own
	cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	out := <-outc
	if err := syscall.Kill(-pgid, 0); err != syscall.ESRCH {
		t.Fatalf("the shell's process group outlived the interrupt (kill -0: %v)", err)
	}
	for _, p := range pids {
		if alive(p) {
			t.Fatalf("process %d of the shell outlived the interrupt", p)
		}
	}
	evs := events(t, out)
	last := lifecycle.Status("")
	for _, e := range evs {
		if e.Type == event.AgentStatus && e.AgentID == "shell-1" {
			last = data[lifecycle.StatusData](t, e).Status
		}
	}
	if last != lifecycle.Interrupted {
		t.Fatalf("the shell's last status is %q, want interrupted", last)
	}
	if i := index(evs, func(e event.Raw) bool { return e.Type == event.Complete && !data[event.CompleteData](t, e).IsError }); i >= 0 {
		t.Fatal("an interrupted run completed without error")
	}
	if len(loopback.ByRule(srv.Log(), "started")) != 1 {
		t.Fatal("the lead's turn did not end before the interrupt")
	}
}
