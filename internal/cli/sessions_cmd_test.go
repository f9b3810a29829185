package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestARunIsSavedAndSessionsListsExportsAndRemovesIt(t *testing.T) {
	state := t.TempDir()
	env := map[string]string{"XDG_STATE_HOME": state}
	code, out, errOut := runEnv(t, env, "run", "--demo", "-p", "hi", "--output-format", "stream-json")
	if code != 0 || errOut != "" {
		t.Fatalf("run: exit %d, stderr %q", code, errOut)
	}
	code, list, errOut := runEnv(t, env, "sessions", "--json")
	var sessions []map[string]any
	if code != 0 || json.Unmarshal([]byte(list), &sessions) != nil || len(sessions) != 1 {
		t.Fatalf("sessions --json: exit %d, %q, stderr %q", code, list, errOut)
	}
	for _, field := range []string{"id", "directory", "title", "started", "agents", "status"} {
		if _, ok := sessions[0][field]; !ok {
			t.Errorf("session lacks %q: %v", field, sessions[0])
		}
	}
	id, _ := sessions[0]["id"].(string)
	if sessions[0]["title"] != "hi" || sessions[0]["status"] != "completed" || !strings.Contains(out, `"session_id":"`+id+`"`) {
		t.Fatalf("session %v; want the run's id, titled hi, completed", sessions[0])
	}
	// The export is the user's prompt, then the run's stream-json.
	if code, exp, _ := runEnv(t, env, "sessions", "export", id); code != 0 || !strings.HasPrefix(exp, `{"type":"user.prompt"`) ||
		!strings.Contains(exp, `"data":{"text":"hi"}}`) || exp[strings.IndexByte(exp, '\n')+1:] != out {
		t.Fatalf("export: exit %d; not the prompt then the run's stream-json:\n%s", code, exp)
	}
	if code, _, errOut := runEnv(t, env, "sessions", "rm", id); code != 0 {
		t.Fatalf("rm: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runEnv(t, env, "sessions", "rm", id); code != 1 || !strings.Contains(errOut, `no such session "`+id+`"`) {
		t.Fatalf("rm again: exit %d, stderr %q; want the unknown id named", code, errOut)
	}
}

func TestSessionsWithNothingSavedListsNoneAndCreatesNoStore(t *testing.T) {
	state := t.TempDir()
	env := map[string]string{"XDG_STATE_HOME": state}
	if code, out, _ := runEnv(t, env, "sessions", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("sessions --json: exit %d, %q; want []", code, out)
	}
	if code, out, _ := runEnv(t, env, "sessions"); code != 0 || !strings.Contains(out, "No saved sessions") {
		t.Fatalf("sessions: exit %d, %q", code, out)
	}
	if code, _, errOut := runEnv(t, env, "sessions", "export", "x1"); code != 1 || !strings.Contains(errOut, `no such session "x1"`) {
		t.Fatalf("export: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runEnv(t, env, "sessions", "export"); code != 2 || !strings.Contains(errOut, "want one session id") {
		t.Fatalf("export without id: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(state, "atomic")); !os.IsNotExist(err) {
		t.Fatalf("reading sessions created the store: %v", err)
	}
}

func TestNoSessionPersistenceIsAFlagOfBothCommands(t *testing.T) {
	for _, args := range [][]string{{"run", "--help"}, {"--help"}} {
		if _, out, _ := run(t, args...); !strings.Contains(out, "-no-session-persistence") {
			t.Errorf("%v does not list --no-session-persistence", args)
		}
	}
	state := t.TempDir()
	code, _, errOut := runEnv(t, map[string]string{"XDG_STATE_HOME": state}, "run", "--demo", "-p", "hi", "--no-session-persistence")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(state, "atomic", "atomic.db")); !os.IsNotExist(err) {
		t.Fatalf("--no-session-persistence created the store: %v", err)
	}
}
