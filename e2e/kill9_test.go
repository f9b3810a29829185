//go:build unix

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
)

// fanOutWithBackgroundScenario: the lead fans out to two quick sync
// sub-agents and one background one that takes a little longer, says it
// started it and waits for its result. After a restart, "what happened"
// gets a plain answer and "pick it up" resumes the background task, which
// answers at once from its own history.
const fanOutWithBackgroundScenario = `
rules:
  - {name: told, match: {last_user_contains: "bg work finally done"}, respond: {text: "the background one reported: bg work finally done", delay_ms: 200}}
  - {name: continued, match: {first_user_contains: "BG WORK", last_user_contains: "Atomic was restarted"}, respond: {text: "bg work finally done"}}
  - {name: resume-ack, match: {tools_include: [resume_task], has_tool_results: true, last_user_contains: "pick it up"}, respond: {text: "resuming it"}}
  - {name: resume, match: {tools_include: [resume_task], last_user_contains: "pick it up"}, respond: {tool_calls: [{name: resume_task, input: {task_id: explore-1}}]}}
  - {name: restarted, match: {last_user_contains: "what happened"}, respond: {text: "back after the kill"}}
  - {name: bg, match: {first_user_contains: "BG WORK"}, respond: {text: "bg work finally done", delay_ms: 600}}
  - {name: sync, match: {first_user_contains: "SYNC"}, respond: {text: "sync part done, in a few words", delay_ms: 40}}
  - {name: ack, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "the sync parts are done; the background one is still at work"}}
  - name: spawn
    match: {system_contains: "You are Atomic", last_user_contains: "fan out"}
    respond:
      tool_calls:
        - {name: task, input: {description: "sync a", prompt: "SYNC A"}}
        - {name: task, input: {description: "sync b", prompt: "SYNC B"}}
        - {name: task, input: {description: "bg", prompt: "BG WORK", subagent_type: explore, mode: background}}
`

// killPoint is one kill -9 of a run, after its first lines lines of
// stdout or at the lead's first turn.end (it then waits for its
// background task).
type killPoint struct {
	lines       int
	leadTurnEnd bool
}

func (k killPoint) String() string {
	if k.leadTurnEnd {
		return "at the lead's turn.end"
	}
	return fmt.Sprintf("after %d lines", k.lines)
}

// killedRun is what a killed run printed and what its lines say.
type killedRun struct {
	stdout   string
	printed  []string
	complete map[string]bool // sub-agents the printed lines show completed
	bgActive bool            // explore-1 was in the background and the lead's turn over
}

// runAndKill starts "fan out" in dir with its store in state, SIGKILLs
// per k and returns every line the run printed, those after the kill
// included.
func runAndKill(t *testing.T, srv *loopback.Server, state, dir string, k killPoint) killedRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd, sc := startStreaming(t, ctx, srv, state, dir, "fan out")
	var run killedRun
	killed := false
	for sc.Scan() {
		run.printed = append(run.printed, sc.Text())
		if !killed && (!k.leadTurnEnd && len(run.printed) >= k.lines || k.leadTurnEnd && isLeadTurnEnd(t, sc.Text())) {
			syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
			killed = true
		}
	}
	cmd.Wait()
	if !killed {
		t.Fatalf("%s: the run ended after %d lines before its kill point", k, len(run.printed))
	}
	run.stdout = strings.Join(run.printed, "\n") + "\n"
	run.complete = map[string]bool{}
	st := replay(events(t, run.stdout), func(_ int, e event.Raw, st *lifecycle.State) {
		if e.Type == event.TurnEnd && e.AgentID == "lead" {
			rec, ok := st.Get("explore-1")
			run.bgActive = ok && rec.Status == lifecycle.Background
		}
		if rec, ok := st.Get("explore-1"); ok && rec.Status != lifecycle.Background {
			run.bgActive = false
		}
	})
	for _, rec := range st.Records() {
		run.complete[rec.ID] = rec.Status == lifecycle.Completed
	}
	return run
}

func isLeadTurnEnd(t *testing.T, line string) bool {
	e := events(t, line)[0]
	return e.Type == event.TurnEnd && e.AgentID == "lead"
}

// startStreaming starts atomic run -p prompt in dir with its store in
// state and stream-json output, read line by line with the scanner.
func startStreaming(t *testing.T, ctx context.Context, srv *loopback.Server, state, dir, prompt string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := withState(command(t, ctx, srv, "anthropic", dir, "-p", prompt, "--output-format", "stream-json"), state)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	return cmd, sc
}

// checkKilledRun: every line the killed run printed is in the store, in
// order, and the store opens cleanly.
func checkKilledRun(t *testing.T, state string, k killPoint, run killedRun) {
	t.Helper()
	list := sessionsCmd(t, state)
	if list.code != 0 || list.stderr != "" || !strings.Contains(list.stdout, "fan out") {
		t.Fatalf("%s: atomic sessions: exit %d, stderr %q, stdout %q; want the store to open cleanly and list the run",
			k, list.code, list.stderr, list.stdout)
	}
	exported := strings.Split(strings.TrimSuffix(sessionsExport(t, state), "\n"), "\n")
	if len(exported) < len(run.printed) || !slices.Equal(exported[:len(run.printed)], run.printed) {
		for i, line := range run.printed {
			if i >= len(exported) || exported[i] != line {
				t.Fatalf("%s: stdout line %d of %d is not the store's (it holds %d):\n stdout: %s", k, i+1, len(run.printed), len(exported), line)
			}
		}
	}
}

// checkTrueStates: after a resume, no agent of the export is pending,
// running or background, and each one completed has its
// subagent.complete recorded; what had completed before the kill stays
// completed.
func checkTrueStates(t *testing.T, k killPoint, run killedRun, export string) {
	t.Helper()
	recorded := map[string]bool{}
	st := replay(events(t, export), func(_ int, e event.Raw, _ *lifecycle.State) {
		if e.Type == event.SubagentComplete {
			recorded[e.AgentID] = true
		}
	})
	for _, rec := range st.Records() {
		switch {
		case rec.Status == lifecycle.Completed && !recorded[rec.ID]:
			t.Errorf("%s: %s shown completed without its subagent.complete in the store", k, rec.ID)
		case rec.Status != lifecycle.Completed && run.complete[rec.ID]:
			t.Errorf("%s: %s had completed before the kill and is shown %s", k, rec.ID, rec.Status)
		case rec.Status != lifecycle.Completed && rec.Status != lifecycle.Interrupted:
			t.Errorf("%s: %s is shown %s after the resume; want completed or interrupted", k, rec.ID, rec.Status)
		}
	}
}

func TestKill9AtTwentyPointsOfAFanOutLosesNoPrintedEventAndResumesEveryAgentInATrueState(t *testing.T) {
	srv := server(t, fanOutWithBackgroundScenario)

	// The whole run, once, to spread the kill points over its lines: from
	// the first to the last before the lead's final answer (whose request
	// takes 200 ms; the lines after it come in one burst, the process
	// ending).
	whole := runIn(t, srv, t.TempDir(), t.TempDir(), "-p", "fan out", "--output-format", "stream-json")
	evs := events(t, whole.stdout)
	leadDelta := func(i int) bool { return evs[i].Type == event.MessageDelta && evs[i].AgentID == "lead" }
	last := len(evs) - 1 // becomes the index of the final answer's first delta: the lines before it
	for last > 0 && !leadDelta(last) {
		last--
	}
	for last > 0 && leadDelta(last-1) {
		last--
	}
	t.Logf("the whole run printed %d lines, %d before the final answer", len(evs), last)
	if whole.code != 0 || last < 20 || !strings.Contains(whole.stdout, "the background one reported") {
		t.Fatalf("the whole run: exit %d, %d lines before its final answer, stderr %q", whole.code, last, whole.stderr)
	}
	var points []killPoint
	const inner = 20
	for i := range inner {
		points = append(points, killPoint{lines: 1 + i*(last-1)/(inner-1)})
	}
	points = append(points, killPoint{leadTurnEnd: true})

	for _, k := range points {
		state, dir := t.TempDir(), t.TempDir()
		run := runAndKill(t, srv, state, dir, k)
		checkKilledRun(t, state, k, run)

		if k.leadTurnEnd {
			if !run.bgActive {
				t.Fatalf("%s: explore-1 was not working in the background at the kill", k)
			}
			r := runIn(t, srv, state, dir, "--continue", "-p", "pick it up", "--output-format", "stream-json")
			evs := events(t, r.stdout)
			if r.code != 0 || len(evs) == 0 {
				t.Fatalf("%s: --continue: exit %d, stderr %q", k, r.code, r.stderr)
			}
			last := evs[len(evs)-1]
			if d := data[event.CompleteData](t, last); last.Type != event.Complete || d.Result != "the background one reported: bg work finally done" {
				t.Fatalf("%s: last event %s %s; want the lead's complete with the resumed task's result", k, last.Type, last.Data)
			}
			export := sessionsExport(t, state)
			checkTrueStates(t, k, run, export)
			st := replay(events(t, export), func(int, event.Raw, *lifecycle.State) {})
			if old, _ := st.Get("explore-1"); old.Status != lifecycle.Interrupted {
				t.Errorf("%s: the killed background task is %s; want interrupted", k, old.Status)
			}
			if again, _ := st.Get("explore-2"); again.Status != lifecycle.Completed || again.Result != "bg work finally done" {
				t.Errorf("%s: its continuation is %s %q; want completed with the task's result", k, again.Status, again.Result)
			}
			continue
		}
		r := runIn(t, srv, state, dir, "--continue", "-p", "what happened", "--output-format", "stream-json")
		if r.code != 0 || !strings.Contains(r.stdout, "back after the kill") {
			t.Fatalf("%s: --continue: exit %d, stderr %q; want the lead to answer", k, r.code, r.stderr)
		}
		checkTrueStates(t, k, run, sessionsExport(t, state))
	}
}
