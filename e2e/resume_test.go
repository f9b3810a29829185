//go:build unix

package e2e

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
)

// slowBackgroundScenario: the lead starts a background sub-agent that
// takes a minute, says so and waits; asked again later, it answers only
// if the first prompt is still in its history.
const slowBackgroundScenario = `
rules:
  - {name: told, match: {last_user_contains: "slow work finally done"}, respond: {text: "the slow one reported: slow work finally done"}}
  - {name: continued, match: {first_user_contains: "SLOW WORK", last_user_contains: "Atomic was restarted"}, respond: {text: "slow work finally done"}}
  - {name: resume-ack, match: {tools_include: [resume_task], has_tool_results: true, last_user_contains: "pick the slow one up"}, respond: {text: "resuming it"}}
  - {name: resume, match: {tools_include: [resume_task], last_user_contains: "pick the slow one up"}, respond: {tool_calls: [{name: resume_task, input: {task_id: explore-1}}]}}
  - {name: resumed, match: {any_user_contains: "start the slow one", last_user_contains: "what happened"}, respond: {text: "resumed with my history"}}
  - {name: slow, match: {first_user_contains: "SLOW WORK"}, respond: {text: "never", delay_ms: 60000}}
  - {name: ack, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "started it"}}
  - name: spawn
    match: {system_contains: "You are Atomic", last_user_contains: "start the slow one"}
    respond:
      tool_calls: [{name: task, input: {description: "slow", prompt: "SLOW WORK", subagent_type: explore, mode: background}}]
`

// killDuringBackground runs "start the slow one" in dir and SIGKILLs the
// process that writes the store once the lead has answered, while
// explore-1 works in the background. What reached stdout is in the store
// (stream-json prints only what the store has committed), so the lead's
// turn.end on stdout is enough to know its turn is saved.
func killDuringBackground(t *testing.T, srv *loopback.Server, state, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, sc := startStreaming(t, ctx, srv, state, dir, "start the slow one")
	for sc.Scan() && !strings.Contains(sc.Text(), `"type":"turn.end"`) {
	}
	syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
}

func TestAKilledRunsBackgroundAgentIsInterruptedOnContinueAndTheLeadKeepsItsHistory(t *testing.T) {
	srv := server(t, slowBackgroundScenario)
	state, dir := t.TempDir(), t.TempDir()
	killDuringBackground(t, srv, state, dir)

	r := runIn(t, srv, state, dir, "--continue", "-p", "what happened", "--output-format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, "resumed with my history") {
		t.Fatalf("--continue: exit %d, stdout %q, stderr %q; want the lead to answer from its history", r.code, r.stdout, r.stderr)
	}
	list := listSessions(t, state)
	if len(list) != 1 || list[0].Status != "completed" {
		t.Fatalf("sessions %+v; want the one session, completed", list)
	}
	var sawInterrupt bool
	evs := events(t, sessionsExport(t, state))
	st := replay(evs, func(_ int, e event.Raw, st *lifecycle.State) {
		if rec, ok := st.Get("explore-1"); ok && rec.Status == lifecycle.Completed {
			t.Fatalf("explore-1 shown completed at %s", e.Type)
		}
		if e.Type == event.AgentStatus && e.AgentID == "explore-1" {
			d := data[lifecycle.StatusData](t, e)
			if d.Status == lifecycle.Interrupted && strings.Contains(d.Agent.Error, "Atomic exited before it finished") {
				sawInterrupt = true
			}
		}
	})
	if rec, _ := st.Get("explore-1"); !sawInterrupt || rec.Status != lifecycle.Interrupted {
		t.Fatalf("explore-1 ends %s (agent.status interrupted with the reason recorded: %v); want interrupted", rec.Status, sawInterrupt)
	}
	if st.Active() != 0 {
		t.Fatalf("%d agents still active in the export", st.Active())
	}
}

// sessionsExport is the export of the only session in stateHome ("" when
// there is none yet).
func sessionsExport(t *testing.T, stateHome string) string {
	t.Helper()
	r := sessionsCmd(t, stateHome, "--json")
	if r.code != 0 || strings.TrimSpace(r.stdout) == "[]" {
		return ""
	}
	list := listSessions(t, stateHome)
	return withoutPrompts(sessionsCmd(t, stateHome, "export", list[0].ID).stdout)
}

// withoutPrompts is an export without the user.prompt lines it places
// among the events: what the tests compare with a run's stream-json.
func withoutPrompts(export string) string {
	var kept []string
	for _, line := range strings.SplitAfter(export, "\n") {
		if !strings.HasPrefix(line, `{"type":"user.prompt"`) {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

func TestResumeTaskFinishesAKilledBackgroundTaskAndTheLeadGetsItsResult(t *testing.T) {
	srv := server(t, slowBackgroundScenario)
	state, dir := t.TempDir(), t.TempDir()
	killDuringBackground(t, srv, state, dir)

	r := runIn(t, srv, state, dir, "--continue", "-p", "pick the slow one up", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("--continue: exit %d, stderr %q", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	last := evs[len(evs)-1]
	if d := data[event.CompleteData](t, last); last.Type != event.Complete || d.Result != "the slow one reported: slow work finally done" {
		t.Fatalf("last event %s %s; want the lead's complete with the resumed task's result", last.Type, last.Data)
	}
	st := replay(events(t, sessionsExport(t, state)), func(int, event.Raw, *lifecycle.State) {})
	old, _ := st.Get("explore-1")
	again, _ := st.Get("explore-2")
	if old.Status != lifecycle.Interrupted || again.Status != lifecycle.Completed || again.Result != "slow work finally done" ||
		again.Description != "slow (resumed explore-1)" {
		t.Fatalf("explore-1 %s, explore-2 %s %q %q; want the killed one interrupted and its continuation completed",
			old.Status, again.Status, again.Description, again.Result)
	}
}
