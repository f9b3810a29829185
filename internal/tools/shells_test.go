//go:build unix

package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/sandbox"
)

// shellRig is a workspace with background shells whose events and ends
// are recorded.
type shellRig struct {
	ws     Workspace
	mu     sync.Mutex
	events []event.Event
	ended  chan ShellEnded
}

func newShellRig(t *testing.T) *shellRig {
	t.Helper()
	r := &shellRig{ws: newWorkspace(t, nil), ended: make(chan ShellEnded, 16)}
	r.ws.Shells = NewShells(ShellsConfig{
		Sink:  event.SinkFunc(func(e event.Event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }),
		Ended: func(e ShellEnded) { r.ended <- e },
	})
	t.Cleanup(func() { r.ws.Shells.StopAll("test over", true) })
	return r
}

func (r *shellRig) of(id string) []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []event.Event
	for _, e := range r.events {
		if e.AgentID == id {
			out = append(out, e)
		}
	}
	return out
}

// run calls tool as agent.
func (r *shellRig) run(t *testing.T, tool Tool, agent string, v any) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Execute(ctx, tool, Call{ID: "call-" + agent, Input: input(t, v), AgentID: agent})
}

// start starts command in the background for agent and returns its id.
func (r *shellRig) start(t *testing.T, agent, command string) string {
	t.Helper()
	res := r.run(t, NewBash(r.ws), agent, map[string]any{"command": command, "run_in_background": true})
	if res.IsError {
		t.Fatalf("background start: %s", res.Content)
	}
	_, rest, ok := strings.Cut(res.Content, "ID: ")
	if !ok {
		t.Fatalf("no shell id in %q", res.Content)
	}
	id, _, _ := strings.Cut(rest, ".")
	return id
}

func (r *shellRig) waitEnd(t *testing.T) ShellEnded {
	t.Helper()
	select {
	case e := <-r.ended:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no shell ended within 10s")
	}
	return ShellEnded{}
}

func TestBackgroundBashReturnsAShellIDAtOnceAndBashOutputReadsOnlyNewOutput(t *testing.T) {
	r := newShellRig(t)
	gate := filepath.Join(r.ws.Root, "go")
	began := time.Now()
	id := r.start(t, "lead", fmt.Sprintf("echo first; while [ ! -e %s ]; do sleep 0.02; done; echo second; exit 3", gate))
	if d := time.Since(began); d > 2*time.Second || id != "shell-1" {
		t.Fatalf("start took %s and gave id %q", d, id)
	}
	out := NewBashOutput(r.ws.Shells)
	deadline := time.Now().Add(5 * time.Second)
	var got string
	for !strings.Contains(got, "first") && time.Now().Before(deadline) {
		got = r.run(t, out, "lead", map[string]any{"shell_id": id}).Content
		time.Sleep(20 * time.Millisecond)
	}
	assertContains(t, got, "Shell shell-1 is running.", "New output:\nfirst")
	if again := r.run(t, out, "lead", map[string]any{"shell_id": id}).Content; again != "Shell shell-1 is running.\nNo new output." {
		t.Fatalf("second read repeats output: %q", again)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	end := r.waitEnd(t)
	if end.ID != id || end.Parent != "lead" || end.ExitCode != 3 || end.Tail != "first\nsecond\n" {
		t.Fatalf("end = %+v", end)
	}
	assertContains(t, end.Notice(), "Background shell shell-1", "exited with status 3", "second")
	got = r.run(t, out, "lead", map[string]any{"shell_id": id}).Content
	if got != "Shell shell-1 exited with status 3.\nNew output:\nsecond" {
		t.Fatalf("read after the end: %q", got)
	}
	if end.Claim() {
		t.Fatal("the wake-up still claims an end bash_output already told")
	}
	evs := r.of(id)
	if len(evs) < 2 || evs[0].Type != event.ShellStart || evs[len(evs)-1].Type != event.ShellEnd || evs[0].ParentAgentID != "lead" || evs[0].ToolCallID != "call-lead" {
		t.Fatalf("events: %+v", evs)
	}
	if d, _ := event.Payload[event.ShellEndData](evs[len(evs)-1].Data); d.ExitCode != 3 || d.Interrupted {
		t.Fatalf("shell.end = %+v", d)
	}
}

func TestAShellsEndIsClaimedOnceWhenNobodyReadItFirst(t *testing.T) {
	r := newShellRig(t)
	r.start(t, "lead", "echo done")
	end := r.waitEnd(t)
	if end.Claimed() || !end.Claim() || end.Claim() || !end.Claimed() {
		t.Fatal("Claim is not true exactly once")
	}
	if end.ExitCode != 0 || end.Tail != "done\n" {
		t.Fatalf("end = %+v", end)
	}
}

func TestKillShellStopsTheShellAndEverythingItStartedAndWakesNobody(t *testing.T) {
	r := newShellRig(t)
	id := r.start(t, "explore-1", "sleep 300 & sleep 300; echo never")
	sh, err := r.ws.Shells.lookup(id, "explore-1")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return groupAlive(sh.pgid) })
	res := r.run(t, NewKillShell(r.ws.Shells), "explore-1", map[string]any{"shell_id": id})
	if res.IsError || res.Content != "Shell shell-1 was stopped." {
		t.Fatalf("kill_shell: %+v", res)
	}
	if groupAlive(sh.pgid) {
		t.Fatal("a process of the shell's group is still running")
	}
	evs := r.of(id)
	d, _ := event.Payload[event.ShellEndData](evs[len(evs)-1].Data)
	if !d.Interrupted || d.Reason != "killed by kill_shell" {
		t.Fatalf("shell.end = %+v", d)
	}
	select {
	case e := <-r.ended:
		t.Fatalf("a killed shell woke its agent: %+v", e)
	case <-time.After(100 * time.Millisecond):
	}
	got := r.run(t, NewBashOutput(r.ws.Shells), "explore-1", map[string]any{"shell_id": id}).Content
	assertContains(t, got, "was stopped (killed by kill_shell)")
}

func TestAnAgentSeesOnlyItsOwnShellsAndAnUnknownIDNamesThem(t *testing.T) {
	r := newShellRig(t)
	id := r.start(t, "lead", "sleep 300")
	res := r.run(t, NewBashOutput(r.ws.Shells), "explore-1", map[string]any{"shell_id": id})
	if !res.IsError || !strings.Contains(res.Content, "you have started none") {
		t.Fatalf("another agent's read: %+v", res)
	}
	res = r.run(t, NewKillShell(r.ws.Shells), "lead", map[string]any{"shell_id": "shell-9"})
	if !res.IsError || !strings.Contains(res.Content, "yours are [shell-1]") {
		t.Fatalf("unknown id: %+v", res)
	}
	if r.ws.Shells.Running("lead") != 1 || r.ws.Shells.Running("explore-1") != 0 {
		t.Fatal("Running miscounts")
	}
}

func TestStopOwnedByStopsOnlyThatAgentsShellsAsInterrupted(t *testing.T) {
	r := newShellRig(t)
	a := r.start(t, "explore-1", "sleep 300")
	b := r.start(t, "explore-2", "sleep 300")
	r.ws.Shells.StopOwnedBy("explore-1", "its agent ended")
	if r.ws.Shells.Running("explore-1") != 0 || r.ws.Shells.Running("explore-2") != 1 {
		t.Fatal("StopOwnedBy stopped the wrong shells")
	}
	evs := r.of(a)
	if d, _ := event.Payload[event.ShellEndData](evs[len(evs)-1].Data); !d.Interrupted || d.Reason != "its agent ended" {
		t.Fatalf("shell.end of %s = %+v", a, d)
	}
	r.ws.Shells.StopAll("quit", true)
	if r.ws.Shells.Running("") != 0 || len(r.of(b)) != 2 {
		t.Fatalf("StopAll left %d running", r.ws.Shells.Running(""))
	}
	res := r.run(t, NewBash(r.ws), "lead", map[string]any{"command": "true", "run_in_background": true})
	if !res.IsError || !strings.Contains(res.Content, "the run is ending") {
		t.Fatalf("a start after StopAll(close): %+v", res)
	}
}

func TestAShellKeepsOnlyTheLast256KiBOfItsOutputAndSaysHowMuchWasLost(t *testing.T) {
	r := newShellRig(t)
	// 300000 bytes of 'x' lines, then a marker.
	id := r.start(t, "lead", "head -c 300000 /dev/zero | tr '\\0' x; echo; echo END")
	end := r.waitEnd(t)
	if !strings.HasSuffix(end.Tail, "END\n") || len(end.Tail) > shellTailBytes {
		t.Fatalf("tail: %d bytes ending %q", len(end.Tail), end.Tail[max(0, len(end.Tail)-10):])
	}
	sh, _ := r.ws.Shells.lookup(id, "lead")
	if len(sh.out.buf) != ShellOutputKept || sh.out.total != 300005 {
		t.Fatalf("ring holds %d of %d bytes", len(sh.out.buf), sh.out.total)
	}
	got := r.run(t, NewBashOutput(r.ws.Shells), "lead", map[string]any{"shell_id": id}).Content
	assertContains(t, got, fmt.Sprintf("(%d bytes of output since the last read were dropped: only the last 256 KiB are kept)", 300005-ShellOutputKept),
		fmt.Sprintf("(the first %d bytes of the new output are not shown)", ShellOutputKept-bashMaxOutput), "END")
}

func TestBashOutputFilterKeepsMatchingLines(t *testing.T) {
	r := newShellRig(t)
	id := r.start(t, "lead", "printf 'ok 1\\nFAIL 2\\nok 3\\nFAIL 4\\n'")
	r.waitEnd(t)
	got := r.run(t, NewBashOutput(r.ws.Shells), "lead", map[string]any{"shell_id": id, "filter": "^FAIL"}).Content
	if got != "Shell shell-1 exited with status 0.\nNew output:\nFAIL 2\nFAIL 4" {
		t.Fatalf("filtered: %q", got)
	}
	res := r.run(t, NewBashOutput(r.ws.Shells), "lead", map[string]any{"shell_id": id, "filter": "("})
	if !res.IsError {
		t.Fatal("a bad filter was accepted")
	}
}

func TestShellOutputEventsAreThrottledAndCarryTheLastLine(t *testing.T) {
	r := newShellRig(t)
	id := r.start(t, "lead", "for i in $(seq 1 40); do echo line $i; sleep 0.02; done")
	r.waitEnd(t)
	var lines []string
	var times []time.Time
	for _, e := range r.of(id) {
		if d, ok := event.Payload[event.ShellOutputData](e.Data); ok && e.Type == event.ShellOutput {
			lines, times = append(lines, d.Line), append(times, e.Time)
		}
	}
	// At most one every 250ms however long the loop takes on a busy
	// machine: a handful, not 40.
	if len(lines) == 0 || len(lines) >= 20 {
		t.Fatalf("%d shell.output events: %q", len(lines), lines)
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < shellLineEvery-50*time.Millisecond { // the margin: a busy machine between the throttle's clock and the event's
			t.Fatalf("shell.output events %d and %d are %v apart, under %v: %q", i-1, i, gap, shellLineEvery, lines)
		}
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "line ") {
			t.Fatalf("output line %q", l)
		}
	}
}

func TestABackgroundCommandRunsInTheSameSandboxAsAForegroundOne(t *testing.T) {
	ws, outside := sandboxed(t, sandbox.WorkspaceWrite)
	ended := make(chan ShellEnded, 1)
	ws.Shells = NewShells(ShellsConfig{Ended: func(e ShellEnded) { ended <- e }})
	t.Cleanup(func() { ws.Shells.StopAll("test over", true) })
	res := Execute(context.Background(), NewBash(ws), Call{ID: "c", AgentID: "lead",
		Input: input(t, map[string]any{"command": "touch " + filepath.Join(outside, "x"), "run_in_background": true})})
	if res.IsError {
		t.Fatal(res.Content)
	}
	select {
	case e := <-ended:
		if e.ExitCode == 0 {
			t.Fatalf("the background command wrote outside the workspace: %+v", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no end")
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Fatal("the file exists outside the workspace")
	}
}

func TestRingSinceReturnsWhatWasWrittenAfterAnOffset(t *testing.T) {
	r := ring{max: 8}
	r.write([]byte("abc"))
	if got, lost := r.since(1); string(got) != "bc" || lost != 0 {
		t.Fatalf("since(1) = %q, %d", got, lost)
	}
	r.write([]byte("defghij")) // 10 written, "cdefghij" kept
	if got, lost := r.since(0); string(got) != "cdefghij" || lost != 2 {
		t.Fatalf("since(0) = %q, %d", got, lost)
	}
	r.write([]byte("kl"))
	if got, _ := r.since(9); string(got) != "jkl" {
		t.Fatalf("since(9) = %q", got)
	}
	r.write([]byte("0123456789"))
	if got, lost := r.since(12); string(got) != "23456789" || lost != 2 {
		t.Fatalf("since(12) = %q, %d", got, lost)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("condition not met within 5s")
}

func TestAShellsLastLineIsTheReducersLastLineOfTheSameBytes(t *testing.T) {
	for _, in := range []string{"", "a\nb\n\n  \n", "one", "x\r\n", "\n\n", "  lead  \n\ttail\t", "no newline at end", "ü\nñ \n"} {
		if got, want := lastLine([]byte(in)), lifecycle.LastLine(in); got != want {
			t.Errorf("lastLine(%q) = %q, lifecycle.LastLine %q", in, got, want)
		}
	}
}
