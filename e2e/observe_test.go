package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// threeExploresScenario: the lead fans out three explore sub-agents, each
// answering after delayMS, then answers.
const threeExploresScenario = `
rules:
  - name: lead-final
    match: {tools_include: [task], has_tool_results: true}
    respond: {text: "All three reported."}
  - name: lead-fanout
    match: {tools_include: [task]}
    respond:
      tool_calls:
        - {name: task, input: {description: "A", prompt: "TASK-A", subagent_type: explore}}
        - {name: task, input: {description: "B", prompt: "TASK-B", subagent_type: explore}}
        - {name: task, input: {description: "C", prompt: "TASK-C", subagent_type: explore}}
  - {name: sub, match: {tools_exclude: [task]}, respond: {text: "found it", delay_ms: 300}}
`

// lifecycleLine is one line of the lifecycle log.
type lifecycleLine struct {
	Msg        string `json:"msg"`
	Level      string `json:"level"`
	SessionID  string `json:"session_id"`
	AgentID    string `json:"agent_id"`
	ParentID   string `json:"parent_id"`
	Kind       string `json:"kind"`
	Type       string `json:"type"`
	Backend    string `json:"backend"`
	Status     string `json:"status"`
	DurationMS int64  `json:"duration_ms"`
}

func readLifecycleLog(t *testing.T, stateHome string) []lifecycleLine {
	t.Helper()
	f, err := os.Open(filepath.Join(stateHome, "atomic", "atomic.log"))
	if err != nil {
		t.Fatalf("the lifecycle log: %v", err)
	}
	defer f.Close()
	var out []lifecycleLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l lifecycleLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

// runWithEnv runs atomic against srv with extra environment variables.
func runWithEnv(t *testing.T, srvScenario string, env []string, args ...string) result {
	t.Helper()
	srv := server(t, srvScenario)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", t.TempDir(), args...)
	cmd.Env = append(cmd.Env, env...)
	return runCmd(t, cmd)
}

func TestEveryRunLogsEachAgentsStartAndEndToTheStateDir(t *testing.T) {
	state := t.TempDir()
	for range 2 {
		r := runWithEnv(t, threeExploresScenario, []string{"XDG_STATE_HOME=" + state}, "-p", "survey")
		if r.code != 0 {
			t.Fatalf("code %d: %s", r.code, r.stderr)
		}
	}
	lines := readLifecycleLog(t, state)
	if len(lines) != 2*2*4 {
		t.Fatalf("two runs of a lead and 3 sub-agents: want 16 lines (a start and an end each), got %d: %+v", len(lines), lines)
	}
	sessions := map[string]int{}
	for _, l := range lines {
		if l.Msg != "agent.end" {
			continue
		}
		sessions[l.SessionID]++
		switch l.Kind {
		case "lead":
			if l.AgentID != "lead" || l.ParentID != "" || l.Status != "completed" || l.Backend != "native" {
				t.Errorf("the lead's end: %+v", l)
			}
		case "subagent":
			if l.ParentID != "lead" || l.Type != "Explore" || l.Status != "completed" || l.Backend != "native" || l.DurationMS < 300 {
				t.Errorf("a sub-agent's end (it answers after 300 ms): %+v", l)
			}
		default:
			t.Errorf("unexpected kind: %+v", l)
		}
	}
	if len(sessions) != 2 {
		t.Errorf("ends by session: %v, want 4 in each of 2 sessions", sessions)
	}
	for s, n := range sessions {
		if n != 4 {
			t.Errorf("session %s has %d ends, want 4", s, n)
		}
	}
}

// oneFailsScenario: the lead spawns two explore sub-agents; the model
// refuses the second one's request (400), so it fails.
const oneFailsScenario = `
rules:
  - name: lead-final
    match: {tools_include: [task], has_tool_results: true}
    respond: {text: "One of two."}
  - name: lead-fanout
    match: {tools_include: [task]}
    respond:
      tool_calls:
        - {name: task, input: {description: "ok", prompt: "TASK-OK", subagent_type: explore}}
        - {name: task, input: {description: "bad", prompt: "TASK-BAD", subagent_type: explore}}
  - {name: bad, match: {tools_exclude: [task], first_user_contains: TASK-BAD}, respond: {error: {status: 400, message: "bad request"}}}
  - {name: ok, match: {tools_exclude: [task]}, respond: {text: "fine", delay_ms: 100}}
`

func TestStatsAfterAMixOfRunsCountsSpawnsAndErrorsPerTypeAndBackend(t *testing.T) {
	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	for _, sc := range []string{threeExploresScenario, threeExploresScenario, oneFailsScenario} {
		if r := runWithEnv(t, sc, env, "-p", "go"); r.code != 0 {
			t.Fatalf("code %d: %s", r.code, r.stderr)
		}
	}
	cmd := exec.Command(binary, "stats", "--json")
	cmd.Env = []string{"HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("atomic stats: %v", err)
	}
	var rows []struct {
		Type, Backend  string
		Spawns, Errors int
		P50MS          int64 `json:"p50_ms"`
		P95MS          int64 `json:"p95_ms"`
		ToolUses       int   `json:"tool_uses"`
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("atomic stats --json printed %q: %v", out, err)
	}
	if len(rows) != 2 {
		t.Fatalf("want an Explore row and a lead row, got %+v", rows)
	}
	ex, lead := rows[0], rows[1]
	if ex.Type != "Explore" || ex.Backend != "native" || ex.Spawns != 8 || ex.Errors != 1 || ex.P50MS < 300 || ex.P95MS < ex.P50MS {
		t.Errorf("Explore row %+v: want 8 spawned, 1 failed, p50 at least the 300 ms answer", ex)
	}
	if lead.Type != "lead" || lead.Spawns != 3 || lead.Errors != 0 || lead.ToolUses != 8 {
		t.Errorf("lead row %+v: want 3 leads, none failed, 8 task calls", lead)
	}
	text := exec.Command(binary, "stats", "--since", "1h")
	text.Env = cmd.Env
	tout, err := text.Output()
	if err != nil || !strings.Contains(string(tout), "Explore") || !strings.Contains(string(tout), "p95") {
		t.Errorf("atomic stats --since 1h: %v\n%s", err, tout)
	}
}
