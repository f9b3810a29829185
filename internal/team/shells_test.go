//go:build unix

package team_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/team"
)

// shellMate scripts teammate ann: its assignment starts command in the
// background and ends the turn; woken by the shell's notice it reports the
// notice's text to the lead.
func shellMate(command string) []loopback.Rule {
	sys := mateSystem("ann")
	return []loopback.Rule{
		{Name: "ann-woken", Match: loopback.Match{SystemContains: sys, LastUserContains: "shell-notification", HasToolResults: ptr(false)},
			Respond: calls(call("send_message", map[string]any{"to": "lead", "content": "ann heard: exited with status 0, said built"}))},
		{Name: "ann-start", Match: loopback.Match{SystemContains: sys, HasToolResults: ptr(false), LastUserContains: "Assignment"},
			Respond: calls(call("bash", map[string]any{"command": command, "run_in_background": true}))},
		{Name: "ann-wait", Match: loopback.Match{SystemContains: sys}, Respond: text("The build runs; I will be told.")},
	}
}

func TestATeammatesBackgroundShellKeepsItWaitingAndWakesItWithItsExitAndOutput(t *testing.T) {
	rules := shellMate("sleep 0.3; echo built")
	lead := func(m loopback.Match) loopback.Match { m.SystemContains = leadSystem; return m }
	rules = append(rules,
		loopback.Rule{Name: "lead-start", Match: lead(loopback.Match{LastUserContains: "Build it", HasToolResults: ptr(false)}),
			Respond: calls(call("team_create", map[string]any{"name": "builders"}), spawnCall("ann"))},
		loopback.Rule{Name: "lead-final", Match: lead(loopback.Match{ToolResultContains: "Shutdown requested"}), Respond: text("ann built it")},
		loopback.Rule{Name: "lead-report", Match: lead(loopback.Match{LastUserContains: "ann heard", HasToolResults: ptr(false)}),
			Respond: calls(call("shutdown_request", map[string]any{"to": "ann"}))},
		loopback.Rule{Name: "lead-note", Match: lead(loopback.Match{}), Respond: text("Noted.")},
	)
	h := start(t, rules, 0)
	h.rt.Submit("Build it with a team.")
	out := h.complete(10 * time.Second)
	// The all-idle notice after ann's shutdown may wake the lead once more.
	if out.Err != nil || len(loopback.ByRule(h.srv.Log(), "lead-final")) != 1 {
		t.Fatalf("outcome = %+v\n%s\n%s", out, h.dump(), h.dumpLog())
	}
	evs := h.Events()
	starts, ends := index(evs, isType(event.ShellStart)), index(evs, isType(event.ShellEnd))
	if len(starts) != 1 || len(ends) != 1 || evs[starts[0]].ParentAgentID != team.AgentID("ann") {
		t.Fatalf("shell events at %v and %v:\n%s", starts, ends, h.dump())
	}
	if d := evs[ends[0]].Data.(event.ShellEndData); d.ExitCode != 0 || d.Interrupted || d.Tail != "built\n" {
		t.Fatalf("shell.end = %+v", d)
	}
	woken := loopback.ByRule(h.srv.Log(), "ann-woken")
	if len(woken) != 1 {
		t.Fatalf("ann was woken %d times, want once:\n%s", len(woken), h.dumpLog())
	}
	for _, w := range []string{"Background shell shell-1 (sleep 0.3; echo built) exited with status 0.", "built"} {
		if !strings.Contains(woken[0].LastUserText(), w) {
			t.Errorf("the wake-up %q lacks %q", woken[0].LastUserText(), w)
		}
	}
	// The shutdown request may come while its woken turn still runs.
	// Idle for a moment when the shell ends, before its wake-up arrives.
	if got := statusesOf(evs, "ann"); !slices.Equal(got[:min(3, len(got))], []string{"spawning", "working", "waiting"}) ||
		!slices.Contains(got[3:], "working") || got[len(got)-1] != "shutdown" {
		t.Errorf("ann went %v, want waiting while its shell ran, then working when it ended", got)
	}
}

func TestATeammateThatEndsWhileItsShellRunsStopsItsWholeGroupAndShowsItInterrupted(t *testing.T) {
	ws := t.TempDir()
	pids := filepath.Join(ws, "pids")
	// ann starts the shell, waits in the foreground until it wrote both
	// pids, tells the lead and ends its turn: it is waiting, not idle,
	// so the lead shuts it down on its message, not on an idle notice.
	sys := mateSystem("ann")
	lead := func(m loopback.Match) loopback.Match { m.SystemContains = leadSystem; return m }
	rules := []loopback.Rule{
		{Name: "ann-start", Match: loopback.Match{SystemContains: sys, HasToolResults: ptr(false), LastUserContains: "Assignment"},
			Respond: calls(call("bash", map[string]any{"command": "echo $$ > " + pids + "; sleep 300 & echo $! >> " + pids + "; sleep 301", "run_in_background": true}))},
		{Name: "ann-pids", Match: loopback.Match{SystemContains: sys, ToolResultContains: "running in background"},
			Respond: calls(call("bash", map[string]any{"command": "until [ \"$(wc -l < " + pids + " 2>/dev/null)\" -ge 2 ]; do sleep 0.05; done; echo both"}))},
		{Name: "ann-tell", Match: loopback.Match{SystemContains: sys, ToolResultContains: "both"},
			Respond: calls(call("send_message", map[string]any{"to": "lead", "content": "ann: shell started"}))},
		{Name: "ann-wait", Match: loopback.Match{SystemContains: sys}, Respond: text("The build runs; I will be told.")},
		{Name: "lead-start", Match: lead(loopback.Match{LastUserContains: "Build it", HasToolResults: ptr(false)}),
			Respond: calls(call("team_create", map[string]any{"name": "builders"}), spawnCall("ann"))},
		{Name: "lead-final", Match: lead(loopback.Match{ToolResultContains: "Shutdown requested"}), Respond: text("ann is gone")},
		{Name: "lead-shutdown", Match: lead(loopback.Match{LastUserContains: "ann: shell started"}), Respond: calls(call("shutdown_request", map[string]any{"to": "ann"}))},
		{Name: "lead-note", Match: lead(loopback.Match{}), Respond: text("Noted.")},
	}
	h := start(t, rules, 0, func(c *runtime.Config) { c.Workspace.Root = ws })
	h.rt.Submit("Build it with a team.")
	out := h.complete(10 * time.Second)
	if out.Err != nil || out.Result != "ann is gone" {
		t.Fatalf("outcome = %+v\n%s\n%s", out, h.dump(), h.dumpLog())
	}
	evs := h.Events()
	ends := index(evs, isType(event.ShellEnd))
	down := index(evs, func(e event.Event) bool {
		d, ok := e.Data.(event.TeammateStatusData)
		return ok && d.Name == "ann" && d.Status == string(team.Shutdown)
	})
	if len(ends) != 1 || len(down) != 1 || ends[0] > down[0] {
		t.Fatalf("shell.end at %v, ann's shutdown at %v: want the shell ended first\n%s", ends, down, h.dump())
	}
	if d := evs[ends[0]].Data.(event.ShellEndData); !d.Interrupted || d.Reason != "its agent ended" {
		t.Fatalf("shell.end = %+v, want interrupted because its agent ended", d)
	}
	b, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		t.Fatalf("pids file %q", b)
	}
	for i, f := range fields {
		pid, _ := strconv.Atoi(f)
		if i == 0 {
			if live := liveInGroup(pid); len(live) > 0 {
				t.Errorf("processes %v of the shell's group %d outlived its teammate", live, pid)
			}
		}
		if running(pid) {
			t.Errorf("process %d of the shell outlived its teammate", pid)
		}
	}
	if len(loopback.ByRule(h.srv.Log(), "ann-woken")) != 0 {
		t.Error("a stopped shell woke its teammate")
	}
}

// running reports whether pid is a process that has not exited (a zombie
// left for its new parent to reap has).
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return false
	}
	state, _ := stat(pid)
	return state != "" && state != "Z" && state != "X"
}

// liveInGroup lists the running processes of process group pgid.
func liveInGroup(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, group := stat(pid); group == pgid && state != "Z" && state != "X" {
			out = append(out, pid)
		}
	}
	return out
}

// stat is pid's state and process group from /proc/pid/stat.
func stat(pid int) (state string, pgid int) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", 0
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp ...
	if len(f) < 3 {
		return "", 0
	}
	pgid, _ = strconv.Atoi(f[2])
	return f[0], pgid
}
