//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/store"
)

// withState points cmd's session store at stateHome.
func withState(cmd *exec.Cmd, stateHome string) *exec.Cmd {
	env := cmd.Env[:0:0]
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "XDG_STATE_HOME="+stateHome)
	return cmd
}

// runIn runs atomic run against srv with its store in stateHome.
func runIn(t *testing.T, srv *loopback.Server, stateHome, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return runCmd(t, withState(command(t, ctx, srv, "anthropic", dir, args...), stateHome))
}

// sessionsCmd runs `atomic sessions args…` with its store in stateHome.
func sessionsCmd(t *testing.T, stateHome string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"sessions"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_STATE_HOME=" + stateHome}
	return runCmd(t, cmd)
}

type savedSession struct {
	ID      string    `json:"id"`
	Dir     string    `json:"directory"`
	Title   string    `json:"title"`
	Started time.Time `json:"started"`
	Agents  int       `json:"agents"`
	Status  string    `json:"status"`
}

func listSessions(t *testing.T, stateHome string) []savedSession {
	t.Helper()
	r := sessionsCmd(t, stateHome, "--json")
	if r.code != 0 {
		t.Fatalf("atomic sessions --json: exit %d: %s", r.code, r.stderr)
	}
	var out []savedSession
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("atomic sessions --json: %v:\n%s", err, r.stdout)
	}
	return out
}

func TestARunIsListedBySessionsAndItsExportEqualsItsStreamJSON(t *testing.T) {
	srv := server(t, fanOutScenario(3, 50))
	state, dir := t.TempDir(), t.TempDir()
	r := runIn(t, srv, state, dir, "-p", "fan out please", "--output-format", "stream-json")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("atomic run: exit %d, stderr %q", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	list := listSessions(t, state)
	if len(list) != 1 {
		t.Fatalf("sessions: %+v; want the one run", list)
	}
	s := list[0]
	if s.ID != evs[0].SessionID || s.Dir != dir || s.Title != "fan out please" || s.Agents != 3 || s.Status != "completed" || s.Started.IsZero() {
		t.Fatalf("session %+v; want id %s, directory %s, its prompt as title, 3 agents, completed", s, evs[0].SessionID, dir)
	}
	checkHistories(t, state, s.ID, evs)
	exp := sessionsCmd(t, state, "export", s.ID)
	if exp.code != 0 {
		t.Fatalf("export: exit %d: %s", exp.code, exp.stderr)
	}
	// The export is the prompt, then what stream-json printed.
	prompt, rest, _ := strings.Cut(exp.stdout, "\n")
	if !strings.HasPrefix(prompt, `{"type":"user.prompt",`) || !strings.Contains(prompt, `"agent_id":"lead","data":{"text":"fan out please"}`) {
		t.Errorf("the export's first line %s is not the user's prompt", prompt)
	}
	if diff := cmp.Diff(r.stdout, rest); diff != "" {
		t.Fatalf("export differs from the run's stream-json (-run +export):\n%s", diff)
	}
	text := sessionsCmd(t, state)
	if !strings.Contains(text.stdout, s.ID) || !strings.Contains(text.stdout, "fan out please") {
		t.Fatalf("atomic sessions:\n%s", text.stdout)
	}
	if rm := sessionsCmd(t, state, "rm", s.ID); rm.code != 0 {
		t.Fatalf("rm: exit %d: %s", rm.code, rm.stderr)
	}
	if list := listSessions(t, state); len(list) != 0 {
		t.Fatalf("after rm: %+v", list)
	}
	for _, args := range [][]string{{"export", s.ID}, {"rm", "no-such-id"}} {
		r := sessionsCmd(t, state, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "no such session") || !strings.Contains(r.stderr, args[1]) {
			t.Errorf("sessions %v: exit %d, stderr %q; want an error naming the unknown id", args, r.code, r.stderr)
		}
	}
}

func TestNoSessionPersistenceLeavesNothingOnDisk(t *testing.T) {
	srv := server(t, "rules: [{respond: {text: hi}}]")
	state := t.TempDir()
	r := runIn(t, srv, state, t.TempDir(), "-p", "hi", "--no-session-persistence")
	if r.code != 0 || r.stderr != "" || strings.TrimSpace(r.stdout) != "hi" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(state, "*", "*")); len(files) != 0 {
		t.Fatalf("files in the state dir: %v", files)
	}
	if got := listSessions(t, state); len(got) != 0 {
		t.Fatalf("sessions %+v", got)
	}
}

func TestACorruptStoreWarnsOnceAndTheRunStillAnswers(t *testing.T) {
	srv := server(t, "rules: [{respond: {text: hi}}]")
	state := t.TempDir()
	os.MkdirAll(filepath.Join(state, "atomic"), 0o700)
	os.WriteFile(filepath.Join(state, "atomic", "atomic.db"), []byte(strings.Repeat("garbage ", 1000)), 0o600)
	r := runIn(t, srv, state, t.TempDir(), "-p", "hi")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "hi" || len(lines) != 1 || !strings.Contains(lines[0], "warning") || !strings.Contains(lines[0], "not saved") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the answer and one warning", r.code, r.stdout, r.stderr)
	}
}

func TestFiftyRunsTwoAtATimeInOneDirectoryLoseNoEvent(t *testing.T) {
	srv := server(t, "rules: [{respond: {text: hi}}]")
	state, dir := t.TempDir(), t.TempDir()
	const runs = 50
	outs := make([]result, runs)
	for i := 0; i < runs; i += 2 {
		var wg sync.WaitGroup
		for j := i; j < i+2; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[j] = runIn(t, srv, state, dir, "-p", fmt.Sprintf("run %d", j), "--output-format", "stream-json")
			}()
		}
		wg.Wait()
	}
	byID := map[string]string{}
	for i, r := range outs {
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("run %d: exit %d, stderr %q", i, r.code, r.stderr)
		}
		byID[events(t, r.stdout)[0].SessionID] = r.stdout
	}
	list := listSessions(t, state)
	if len(list) != runs || len(byID) != runs {
		t.Fatalf("%d sessions listed, %d distinct ids; want %d", len(list), len(byID), runs)
	}
	for _, s := range list {
		exp := sessionsCmd(t, state, "export", s.ID)
		if exp.code != 0 || withoutPrompts(exp.stdout) != byID[s.ID] || !strings.HasPrefix(exp.stdout, `{"type":"user.prompt"`) {
			t.Fatalf("session %s: export (exit %d, %s) is not its prompt then its run's stream-json:\n%s",
				s.ID, exp.code, exp.stderr, cmp.Diff(byID[s.ID], exp.stdout))
		}
	}
}

// checkHistories checks that the store holds the history of the lead and of
// every sub-agent of the run, each ending with its final answer.
func checkHistories(t *testing.T, state, id string, evs []event.Raw) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(state, "atomic", store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	agents := []string{"lead"}
	for _, e := range evs {
		if e.Type == event.SubagentStart {
			agents = append(agents, e.AgentID)
		}
	}
	for _, a := range agents {
		h, ok, err := st.LoadHistory(context.Background(), id, a)
		if err != nil || !ok || len(h) < 2 || h[len(h)-1].Role != provider.RoleAssistant {
			t.Errorf("history of %s: %d messages, saved %v, %v; want it saved up to its answer", a, len(h), ok, err)
		}
	}
}

// The export is the whole conversation: the user's prompt, and the
// message that woke the lead when its background task finished, in order.
func TestTheExportHoldsTheUsersPromptAndTheBackgroundResultThatWokeTheLeadInOrder(t *testing.T) {
	srv := server(t, `
rules:
  - {name: woken, match: {last_user_contains: "task-notification"}, respond: {text: "the background task reported"}}
  - {name: sub, match: {first_user_contains: "SLOW"}, respond: {text: "slow result", delay_ms: 200}}
  - {name: acked, match: {has_tool_results: true}, respond: {text: "started it"}}
  - name: spawn
    respond:
      tool_calls:
        - {name: task, input: {description: "slow one", prompt: "SLOW", subagent_type: general-purpose, mode: background}}
`)
	state := t.TempDir()
	r := runIn(t, srv, state, t.TempDir(), "-p", "start the slow one", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("atomic run: exit %d, stderr %q", r.code, r.stderr)
	}
	list := listSessions(t, state)
	if len(list) != 1 {
		t.Fatalf("sessions: %+v", list)
	}
	exp := sessionsCmd(t, state, "export", list[0].ID)
	if exp.code != 0 {
		t.Fatalf("export: exit %d: %s", exp.code, exp.stderr)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(exp.stdout), "\n") {
		var e struct {
			Type    string `json:"type"`
			AgentID string `json:"agent_id"`
			Data    struct {
				Text string `json:"text"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("export line %s: %v", line, err)
		}
		switch {
		case e.Type == "user.prompt", e.Type == "message.delivered",
			e.Type == "message.complete" && e.AgentID == event.LeadID:
			got = append(got, e.Type+": "+strings.ReplaceAll(e.Data.Text, "\n", " "))
		}
	}
	want := []string{"user.prompt: start the slow one", "message.complete: ", "message.complete: started it",
		"message.delivered: <task-notification>", "message.complete: the background task reported"}
	if len(got) != len(want) {
		t.Fatalf("the export's conversation:\n%s\nwant the shape of\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("line %d: %q, want %q…", i, got[i], want[i])
		}
	}
	if !strings.Contains(got[3], "slow result") {
		t.Errorf("the delivered message %q does not carry the task's result", got[3])
	}
}
