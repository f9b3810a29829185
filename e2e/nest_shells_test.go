//go:build unix

package e2e

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
)

// nestShellScenario: the lead starts A in the background; A starts its
// own background agent B (answering after bDelay ms) and a background
// shell running command, and ends its turn; woken by each end, A reports
// once it has heard both; the lead, woken by A's report, answers.
func nestShellScenario(bDelay, command string) string {
	return `
rules:
  - {name: b, match: {first_user_contains: B-WORK}, respond: {text: "B found 42", delay_ms: ` + bDelay + `}}
  - name: a-woken
    match: {first_user_contains: A-WORK, has_tool_results: false, user_texts_contain_all: ["B found 42", "exited with status 0"]}
    respond: {text: "A reports: 42, and the build said built"}
  - name: a
    match: {last_user_contains: A-WORK, has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: "find the number", prompt: "B-WORK", mode: background}}
        - {name: bash, input: {command: ` + strconv.Quote(command) + `, run_in_background: true}}
  - {name: a-waits, match: {first_user_contains: A-WORK}, respond: {text: "B and the build are on it"}}
  - {name: lead-woken, match: {first_user_contains: NEST-GO, any_user_contains: "A reports: 42"}, respond: {text: "the lead heard: 42, built"}}
  - {name: lead-waits, match: {first_user_contains: NEST-GO, has_tool_results: true}, respond: {text: "A is on it"}}
  - name: lead
    match: {first_user_contains: NEST-GO}
    respond: {tool_calls: [{name: task, input: {description: "ask B and build", prompt: "A-WORK", mode: background}}]}
`
}

func TestANestedAgentWaitsForItsChildAndItsShellIsWokenWithTheShellsExitAndOutputAndOnlyThenCompletes(t *testing.T) {
	srv := server(t, nestShellScenario("300", "sleep 0.8; echo built"))
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "NEST-GO", "--max-depth", "3",
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	seq, at, parent := statusesOf(t, evs)
	a, b, sh := "general-purpose-1", "general-purpose-2", "shell-1"
	if parent[a] != event.LeadID || parent[b] != a || parent[sh] != a {
		t.Fatalf("parents: A's %q, B's %q, the shell's %q", parent[a], parent[b], parent[sh])
	}
	if got := seq[a]; len(got) < 3 || got[0] != lifecycle.Background || got[1] != lifecycle.Waiting || got[len(got)-1] != lifecycle.Completed {
		t.Fatalf("A went through %v, want background, waiting, …, completed", got)
	}
	if got := seq[sh]; !slicesEqual(got, []lifecycle.Status{lifecycle.Running, lifecycle.Completed}) {
		t.Fatalf("the shell went through %v", got)
	}
	if !(at[a+"/waiting"] < at[sh+"/completed"] && at[sh+"/completed"] < at[a+"/completed"] && at[b+"/completed"] < at[a+"/completed"]) {
		t.Fatalf("order: A waiting at %d, the shell completed at %d, B at %d, A completed at %d",
			at[a+"/waiting"], at[sh+"/completed"], at[b+"/completed"], at[a+"/completed"])
	}
	end := index(evs, func(e event.Raw) bool { return e.Type == event.ShellEnd })
	if d := data[event.ShellEndData](t, evs[end]); d.ExitCode != 0 || d.Tail != "built\n" {
		t.Fatalf("shell.end = %+v", d)
	}
	woken := loopback.ByRule(srv.Log(), "a-woken")
	if len(woken) != 1 {
		t.Fatalf("A reported %d times, want once", len(woken))
	}
	notice := ""
	for _, m := range woken[0].Messages {
		if m.Role == "user" && strings.Contains(m.Text, "shell-notification") {
			notice += m.Text
		}
	}
	for _, w := range []string{"Background shell shell-1 (sleep 0.8; echo built) exited with status 0.", "built"} {
		if !strings.Contains(notice, w) {
			t.Errorf("A's wake-up %q lacks %q", notice, w)
		}
	}
	last := evs[len(evs)-1]
	if last.Type != event.Complete || data[event.CompleteData](t, last).Result != "the lead heard: 42, built" {
		t.Fatalf("last event %s %s", last.Type, last.Data)
	}
	for i, e := range evs[:len(evs)-1] {
		if e.Type == event.Complete {
			t.Fatalf("complete at %d before the end", i)
		}
	}
}

// runUntil starts atomic with args and sends SIGINT once a stream-json
// line satisfies when; it returns the events and the exit error.
func runUntil(t *testing.T, srv *loopback.Server, ws string, when func(line string) bool, args ...string) ([]event.Raw, error, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", ws, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	signalled := false
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if !signalled && when(sc.Text()) {
			signalled = true
			_ = cmd.Process.Signal(syscall.SIGINT)
		}
	}
	err = cmd.Wait()
	return events(t, strings.Join(lines, "\n")), err, signalled
}

// groupGone fails t if a process of the shell whose pids file is path
// still runs, or its process group has one.
func groupGone(t *testing.T, path string) {
	t.Helper()
	pids := waitForPIDs(t, path, 2)
	if live := liveInGroup(pids[0]); len(live) > 0 {
		t.Errorf("processes %v of the shell's group %d are still running", live, pids[0])
	}
	for _, p := range pids {
		if alive(p) {
			t.Errorf("process %d of the shell is still running", p)
		}
	}
}

// liveInGroup lists the running (not zombie) processes of group pgid.
func liveInGroup(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // state ppid pgrp
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

const longShell = "echo $$ > pids; sleep 300 & echo $! >> pids; sleep 301"

func TestInterruptingANestedAgentWaitingOnItsChildAndShellInterruptsEveryNodeAndLeavesNoProcess(t *testing.T) {
	srv := server(t, nestShellScenario("30000", longShell))
	ws := t.TempDir()
	evs, err, signalled := runUntil(t, srv, ws, func(line string) bool {
		if !strings.Contains(line, `"type":"agent.status"`) || !strings.Contains(line, `"status":"waiting"`) {
			return false
		}
		waitForPIDs(t, filepath.Join(ws, "pids"), 2) // the shell's processes all run
		return true
	}, "-p", "NEST-GO", "--max-depth", "3", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
	var ee *exec.ExitError
	if !signalled || !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("signalled %v, exit %v; want 130 after A waited", signalled, err)
	}
	st := replay(evs, func(int, event.Raw, *lifecycle.State) {})
	recs := st.Records()
	if len(recs) != 3 {
		t.Fatalf("%d records, want A, B and the shell: %+v", len(recs), recs)
	}
	for _, r := range recs {
		if r.Status != lifecycle.Interrupted {
			t.Fatalf("%s ended %s, want interrupted", r.ID, r.Status)
		}
	}
	if !st.Settled() {
		t.Fatal("the replayed run is not settled")
	}
	groupGone(t, filepath.Join(ws, "pids"))
}

// A's failing answer comes 2 s after its shell started, so the shell's
// processes are all running (and have written their pids) when it ends.
func TestASubagentThatFailsWhileItsShellRunsStopsTheShellWhichEndsInterruptedAndLeavesNoProcess(t *testing.T) {
	srv := server(t, `
rules:
  - {name: a-fails, match: {first_user_contains: A-WORK, has_tool_results: true}, respond: {delay_ms: 2000, error: {status: 400, type: invalid_request_error, message: "A-BROKE"}}}
  - name: a
    match: {first_user_contains: A-WORK}
    respond: {tool_calls: [{name: bash, input: {command: "`+longShell+`", run_in_background: true}}]}
  - {name: lead-told, match: {first_user_contains: GO, any_user_contains: "A-BROKE"}, respond: {text: "A failed"}}
  - {name: lead-waits, match: {first_user_contains: GO, has_tool_results: true}, respond: {text: "A is on it"}}
  - name: lead
    match: {first_user_contains: GO}
    respond: {tool_calls: [{name: task, input: {description: "build", prompt: "A-WORK", mode: background}}]}
`)
	ws := t.TempDir()
	r := atomic(t, srv, "anthropic", ws, "-p", "GO", "--max-depth", "3", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	seq, at, parent := statusesOf(t, evs)
	a, sh := "general-purpose-1", "shell-1"
	if parent[sh] != a || !slicesEqual(seq[sh], []lifecycle.Status{lifecycle.Running, lifecycle.Interrupted}) {
		t.Fatalf("the shell (parent %q) went through %v, want running, interrupted", parent[sh], seq[sh])
	}
	if got := seq[a]; got[len(got)-1] != lifecycle.Error || at[sh+"/interrupted"] > at[a+"/error"] {
		t.Fatalf("A went through %v (error at %d), the shell ended at %d: want the shell stopped first", got, at[a+"/error"], at[sh+"/interrupted"])
	}
	end := index(evs, func(e event.Raw) bool { return e.Type == event.ShellEnd })
	if d := data[event.ShellEndData](t, evs[end]); !d.Interrupted || d.Reason != "its agent ended" {
		t.Fatalf("shell.end = %+v", d)
	}
	groupGone(t, filepath.Join(ws, "pids"))
}
