package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
