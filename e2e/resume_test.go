package e2e

import (
	"bufio"
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// slowBackgroundScenario: the lead starts a background sub-agent that
// takes a minute, says so and waits; asked again later, it answers only
// if the first prompt is still in its history.
const slowBackgroundScenario = `
rules:
  - {name: resumed, match: {any_user_contains: "start the slow one", last_user_contains: "what happened"}, respond: {text: "resumed with my history"}}
  - {name: slow, match: {first_user_contains: "SLOW WORK"}, respond: {text: "never", delay_ms: 60000}}
  - {name: ack, match: {tools_include: [task], has_tool_results: true}, respond: {text: "started it"}}
  - name: spawn
    match: {tools_include: [task], last_user_contains: "start the slow one"}
    respond:
      tool_calls: [{name: task, input: {description: "slow", prompt: "SLOW WORK", subagent_type: explore, mode: background}}]
`

func TestAKilledRunsBackgroundAgentIsInterruptedOnContinueAndTheLeadKeepsItsHistory(t *testing.T) {
	srv := server(t, slowBackgroundScenario)
	state, dir := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := withState(command(t, ctx, srv, "anthropic", dir, "-p", "start the slow one", "--output-format", "stream-json"), state)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() && !strings.Contains(sc.Text(), `"type":"turn.end"`) {
	}
	// The lead has answered; explore-1 works in the background. Wait for
	// the store to hold the turn's end, then kill the process that writes it.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(sessionsExport(t, state), `"type":"turn.end"`) {
		if time.Now().After(deadline) {
			t.Fatal("the store never recorded the lead's turn.end")
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(innerPID(t, cmd.Process.Pid), syscall.SIGKILL)
	cmd.Wait()

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
	return sessionsCmd(t, stateHome, "export", list[0].ID).stdout
}
