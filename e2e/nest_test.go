//go:build unix

package e2e

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// nestScenario: the lead starts A in the background; A starts B in the
// background and ends its turn; B answers after bDelay ms; A, woken by
// B's result, reports; the lead, woken by A's, answers.
func nestScenario(bDelay string) string {
	return `
rules:
  - {name: b, match: {first_user_contains: B-WORK}, respond: {text: "B found 42", delay_ms: ` + bDelay + `}}
  - {name: a-woken, match: {first_user_contains: A-WORK, any_user_contains: "B found 42"}, respond: {text: "A reports: 42"}}
  - {name: a-waits, match: {first_user_contains: A-WORK, has_tool_results: true}, respond: {text: "B is on it"}}
  - name: a
    match: {first_user_contains: A-WORK}
    respond: {tool_calls: [{name: task, input: {description: "find the number", prompt: "B-WORK", mode: background}}]}
  - {name: lead-woken, match: {first_user_contains: NEST-GO, any_user_contains: "A reports: 42"}, respond: {text: "the lead heard: 42"}}
  - {name: lead-waits, match: {first_user_contains: NEST-GO, has_tool_results: true}, respond: {text: "A is on it"}}
  - name: lead
    match: {first_user_contains: NEST-GO}
    respond: {tool_calls: [{name: task, input: {description: "ask B", prompt: "A-WORK", mode: background}}]}
`
}

// statusesOf is each agent's agent.status sequence, with the index of
// each status's first event.
func statusesOf(t *testing.T, evs []event.Raw) (seq map[string][]lifecycle.Status, at map[string]int, parent map[string]string) {
	seq, at, parent = map[string][]lifecycle.Status{}, map[string]int{}, map[string]string{}
	for i, e := range evs {
		if e.Type != event.AgentStatus {
			continue
		}
		r := data[lifecycle.StatusData](t, e).Agent
		if s := seq[r.ID]; len(s) == 0 || s[len(s)-1] != r.Status {
			seq[r.ID] = append(s, r.Status)
			if _, ok := at[r.ID+"/"+string(r.Status)]; !ok {
				at[r.ID+"/"+string(r.Status)] = i
			}
		}
		if parent[r.ID] == "" {
			parent[r.ID] = r.ParentID
		}
	}
	return seq, at, parent
}

func TestANestedBackgroundAgentWaitsForItsOwnChildIsWokenByItAndOnlyThenCompletes(t *testing.T) {
	srv := server(t, nestScenario("600"))
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "NEST-GO", "--max-depth", "3", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	seq, at, parent := statusesOf(t, evs)
	a, b := "general-purpose-1", "general-purpose-2"
	want := []lifecycle.Status{lifecycle.Background, lifecycle.Waiting, lifecycle.Background, lifecycle.Completed}
	if got := seq[a]; !slicesEqual(got, want) {
		t.Fatalf("A went through %v, want %v", got, want)
	}
	if parent[a] != event.LeadID || parent[b] != a {
		t.Fatalf("parents: A's %q, B's %q", parent[a], parent[b])
	}
	// B's first event, the tool.start of A's task call, already names A.
	for _, e := range evs {
		if e.Type == event.ToolStart && data[event.ToolStartData](t, e).SubagentID == b {
			if e.AgentID != a {
				t.Fatalf("B's task call came from %q, want A", e.AgentID)
			}
			break
		}
	}
	if !(at[a+"/waiting"] < at[b+"/completed"] && at[b+"/completed"] < at[a+"/completed"]) {
		t.Fatalf("order: A waiting at %d, B completed at %d, A completed at %d", at[a+"/waiting"], at[b+"/completed"], at[a+"/completed"])
	}
	last := evs[len(evs)-1]
	if last.Type != event.Complete || data[event.CompleteData](t, last).Result != "the lead heard: 42" {
		t.Fatalf("last event %s %s", last.Type, last.Data)
	}
	for i, e := range evs[:len(evs)-1] {
		if e.Type == event.Complete {
			t.Fatalf("complete at %d before the end", i)
		}
	}
}

func TestInterruptingARunWhoseNestedAgentWaitsInterruptsEveryNodeAndLeavesNothingRunning(t *testing.T) {
	srv := server(t, nestScenario("30000"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", t.TempDir(), "-p", "NEST-GO", "--max-depth", "3", "--output-format", "stream-json")
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
		if !signalled && strings.Contains(sc.Text(), `"type":"agent.status"`) && strings.Contains(sc.Text(), `"status":"waiting"`) {
			signalled = true
			_ = cmd.Process.Signal(syscall.SIGINT)
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !signalled || !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("signalled %v, exit %v; want 130 after A waited", signalled, err)
	}
	evs := events(t, strings.Join(lines, "\n"))
	st := replay(evs, func(int, event.Raw, *lifecycle.State) {})
	recs := st.Records()
	if len(recs) != 2 {
		t.Fatalf("%d records, want A and B: %+v", len(recs), recs)
	}
	for _, r := range recs {
		if r.Status != lifecycle.Interrupted || r.Session != lifecycle.SessionClosed {
			t.Fatalf("%s ended %s, session %s", r.ID, r.Status, r.Session)
		}
	}
	if !st.Settled() {
		t.Fatal("the replayed run is not settled")
	}
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
