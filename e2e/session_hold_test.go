//go:build unix

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/store"
)

// holdScenario: a first prompt answered at once; a long job that runs a
// command, then takes its time to answer; a prompt that must never reach
// the model; a run that never ends.
const holdScenario = `
rules:
  - {name: opened, match: {last_user_contains: "OPENING"}, respond: {text: "opened"}}
  - {name: long-answer, match: {has_tool_results: true, last_user_contains: "LONG JOB"}, respond: {text: "long job finished", delay_ms: 4000}}
  - {name: long, match: {last_user_contains: "LONG JOB"}, respond: {tool_calls: [{name: bash, input: {command: "echo long-job-output", description: "work"}}]}}
  - {name: intruder, match: {last_user_contains: "INTRUDER"}, respond: {text: "intruder answered"}}
  - {name: forever, match: {last_user_contains: "FOREVER"}, respond: {text: "never", delay_ms: 60000}}
  - {name: after, match: {last_user_contains: "AFTER THE KILL"}, respond: {text: "resumed after the kill"}}
`

// startRun starts `atomic run` in dir with the store in state, stream-json
// on a scanner, and returns once its first line (committed to the store
// before it is printed) is out.
func startRun(t *testing.T, srv *loopback.Server, state, dir string, args ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := withState(command(t, ctx, srv, "anthropic", dir, append(args, "--output-format", "stream-json")...), state)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	if !sc.Scan() {
		t.Fatalf("atomic %v printed nothing", args)
	}
	return cmd, sc
}

// waitRule waits until the loopback is answering a request with rule.
func waitRule(t *testing.T, srv *loopback.Server, rule string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ruleInFlight(srv, rule); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no request answered by %s came", rule)
		}
	}
}

func TestASecondResumeOfASessionOpenInAnotherAtomicIsRefusedAndTheFirstsHistoryIsKept(t *testing.T) {
	srv := server(t, holdScenario)
	state, dir := t.TempDir(), t.TempDir()
	if r := runIn(t, srv, state, dir, "-p", "OPENING"); r.code != 0 {
		t.Fatalf("first run: exit %d, stderr %q", r.code, r.stderr)
	}
	id := listSessions(t, state)[0].ID

	first, sc := startRun(t, srv, state, dir, "--resume", id, "-p", "LONG JOB", "--allowed-tools", "bash")
	waitRule(t, srv, "long-answer") // its command ran; its answer takes 4 s
	if s := listSessions(t, state)[0]; s.Status != "running" {
		t.Fatalf("the session being resumed is listed %s; want running", s.Status)
	}
	second := runIn(t, srv, state, dir, "--resume", id, "-p", "INTRUDER")
	want := fmt.Sprintf("atomic: session %s is open in another Atomic (pid %d); wait for it to end or use --continue/--resume another\n",
		id, first.Process.Pid)
	if second.code != 1 || second.stderr != want || second.stdout != "" {
		t.Fatalf("second --resume: exit %d, stdout %q, stderr %q; want exit 1 and %q", second.code, second.stdout, second.stderr, want)
	}
	var out strings.Builder
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	if err := first.Wait(); err != nil || !strings.Contains(out.String(), "long job finished") {
		t.Fatalf("the first resume: %v; want it to finish its answer:\n%s", err, out.String())
	}
	if ruleInFlight(srv, "intruder") || len(loopback.ByRule(srv.Log(), "intruder")) > 0 {
		t.Fatal("the refused resume reached the model")
	}

	st, err := store.Open(context.Background(), filepath.Join(state, "atomic", store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	prompts, _ := st.Prompts(context.Background(), id)
	if strings.Join(prompts, "|") != "OPENING|LONG JOB" {
		t.Fatalf("prompts %q; want the two runs' and not the refused one's", prompts)
	}
	h, _, err := st.LoadHistory(context.Background(), id, "lead")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range h {
		for _, p := range m.Parts {
			switch {
			case p.Text != "":
				texts = append(texts, p.Text)
			case p.ToolResult != nil:
				texts = append(texts, strings.TrimSpace(p.ToolResult.Content))
			}
		}
	}
	if got := strings.Join(texts, "|"); !strings.HasPrefix(got, "OPENING|opened|LONG JOB|") || !strings.Contains(got, "long-job-output") ||
		!strings.HasSuffix(got, "|long job finished") || strings.Contains(got, "INTRUDER") || h[len(h)-1].Role != provider.RoleAssistant {
		t.Fatalf("the lead's history: %q; want the opening, the long job with its command's output and answer, nothing of the refused one", got)
	}
	if s := listSessions(t, state)[0]; s.Status != "completed" {
		t.Fatalf("after the resume the session is %s; want completed", s.Status)
	}
}

func TestAKilledRunIsListedInterruptedWhileALiveOneIsListedRunningAndResumesAtOnce(t *testing.T) {
	srv := server(t, holdScenario)
	state, dir := t.TempDir(), t.TempDir()
	killed, _ := startRun(t, srv, state, dir, "-p", "FOREVER one")
	waitRule(t, srv, "forever")
	killedID := listSessions(t, state)[0].ID
	syscall.Kill(killed.Process.Pid, syscall.SIGKILL)
	killed.Wait()

	live, _ := startRun(t, srv, state, t.TempDir(), "-p", "FOREVER two")
	status := map[string]string{}
	for _, s := range listSessions(t, state) {
		status[s.ID] = s.Status
	}
	var liveID string
	for id := range status {
		if id != killedID {
			liveID = id
		}
	}
	if len(status) != 2 || status[killedID] != "interrupted" || status[liveID] != "running" {
		t.Fatalf("sessions %v; want the killed one (%s) interrupted and the live one running", status, killedID)
	}
	text := sessionsCmd(t, state)
	for _, line := range strings.Split(text.stdout, "\n") {
		if strings.HasPrefix(line, killedID) && !strings.HasSuffix(strings.TrimSpace(line), "interrupted") {
			t.Fatalf("atomic sessions shows the killed run as %q", line)
		}
	}

	r := runIn(t, srv, state, dir, "--resume", killedID, "-p", "AFTER THE KILL")
	if r.code != 0 || !strings.Contains(r.stdout, "resumed after the kill") {
		t.Fatalf("resuming the killed run: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	live.Process.Signal(syscall.SIGINT)
	live.Wait()
}
