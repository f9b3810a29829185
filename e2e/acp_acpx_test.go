package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// acpx runs acpx (the headless ACP client from npm) in dir with `atomic
// acp` against srv as its agent; home keeps acpx's records and Atomic's
// sessions. Its queue owner, which holds the agent between commands,
// ends 5 s after the last (acpx's default is 300 s).
func acpx(t *testing.T, srv *loopback.Server, home, dir string, args ...string) string {
	t.Helper()
	argv, env := acpCommand(srv, home, "--permission-mode", "acceptEdits")
	agent := strings.Join(append([]string{binary}, argv...), " ")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testkit.ACPX(t), append([]string{"--agent", agent, "--cwd", dir, "--ttl", "5", "--approve-all"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("acpx %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// acpxRecord is the part of acpx's record of a session the tests read.
type acpxRecord struct {
	SessionID string            `json:"acp_session_id"`
	Messages  []json.RawMessage `json:"messages"`
	Acpx      struct {
		Commands []struct {
			Name string `json:"name"`
		} `json:"available_commands"`
	} `json:"acpx"`
}

func readACPXRecord(t *testing.T, home, id string) (acpxRecord, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, ".acpx", "sessions", id+".json"))
	if err != nil {
		t.Fatalf("acpx's record of %s: %v", id, err)
	}
	var r acpxRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r, string(b)
}

func TestACPXKeepsOneSessionFromNewThroughPromptsAndRecordsABackgroundCallsEndAndTheCommands(t *testing.T) {
	srv := server(t, strings.Replace(backgroundAnalysis, "rules:\n", "rules:\n  - {name: greeted, match: {last_user_contains: \"Say hello to Ada\"}, respond: {text: \"hello Ada\"}}\n", 1))
	home, dir := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".claude", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", "commands", "greet.md"), []byte(greetCommand), 0o644); err != nil {
		t.Fatal(err)
	}
	// A fresh home: acpx caches the capabilities of this first start.
	id := strings.TrimSpace(lastLine(acpx(t, srv, home, dir, "sessions", "new")))
	if !strings.HasPrefix(id, "atomic-") {
		t.Fatalf("sessions new printed %q, want Atomic's session id", id)
	}
	out := acpx(t, srv, home, dir, "prompt", "start the analysis")
	if !strings.Contains(out, "Spawned it; carrying on.") {
		t.Fatalf("first prompt: %s", out)
	}
	testkit.WaitFor(t, 20*time.Second, "the background agent's answer", func() bool {
		sub := loopback.ByRule(srv.Log(), "sub")
		return len(sub) == 1 && !sub[0].End.IsZero()
	})
	out = acpx(t, srv, home, dir, "prompt", "what did it say?")
	if !strings.Contains(out, "The background task said 42.") {
		t.Errorf("the next prompt's answer: %s; want the lead's follow-up on the result", out)
	}
	woke := loopback.ByRule(srv.Log(), "lead-notified")
	if len(woke) != 1 {
		t.Fatalf("%d requests carried the result, want 1", len(woke))
	}
	var history []string
	for _, m := range woke[0].Messages {
		history = append(history, m.Text)
	}
	if h := strings.Join(history, "|"); !strings.Contains(h, "start the analysis") {
		t.Errorf("the second prompt ran in another session (history %q): acpx switched sessions", h)
	}
	rec, raw := readACPXRecord(t, home, id)
	if rec.SessionID != id {
		t.Errorf("acpx's record is of session %q, want %q", rec.SessionID, id)
	}
	if !strings.Contains(raw, "background result 42") {
		t.Errorf("acpx's record lacks the background call's result: %s", raw)
	}
	if strings.Count(raw, "The background task said 42.") != 1 {
		t.Errorf("acpx's record should hold the follow-up once, in the second prompt's answer")
	}
	out = acpx(t, srv, home, dir, "prompt", "/greet Ada")
	if !strings.Contains(out, "hello Ada") {
		t.Errorf("/greet Ada: %s; want the expanded prompt answered", out)
	}
	rec, _ = readACPXRecord(t, home, id)
	found := false
	for _, c := range rec.Acpx.Commands {
		found = found || c.Name == "greet"
	}
	if !found {
		t.Errorf("acpx's record of the available commands %+v lacks greet", rec.Acpx.Commands)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
