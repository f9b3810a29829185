//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// hooksSettings is a real-shaped .claude/settings.json: a guard that
// blocks rm -rf (exit 2, the reason on stderr), context added to every
// prompt, and a log of every event's JSON.
const hooksSettings = `{
  "permissions": {"allow": ["Bash(echo:*)", "Bash(rm:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh", "timeout": 10}]},
      {"matcher": "*", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/log.sh"}]}
    ],
    "PostToolUse": [{"matcher": "Edit|Write|Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/log.sh"}]}],
    "UserPromptSubmit": [{"hooks": [
      {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/log.sh"},
      {"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"UserPromptSubmit\", \"additionalContext\": \"The deploy freeze is on until Monday.\"}}'"}
    ]}],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/log.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/log.sh"}]}],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/log.sh"}]}]
  }
}`

const guardScript = `#!/bin/bash
input=$(cat)
case "$input" in
  *'rm -rf'*) echo "rm -rf is blocked by the project's guard; delete files one by one" >&2; exit 2 ;;
esac
exit 0
`

// logScript appends each event's JSON, one line each, and what it saw of
// the environment.
// One write per line: hooks of parallel tool calls run at once.
const logScript = `#!/bin/bash
line=$(tr -d '\n')
printf '%s key=%s\n' "$line" "${ANTHROPIC_API_KEY:-none}" >> "$CLAUDE_PROJECT_DIR/hooks.log"
`

func hooksWorkspace(t *testing.T) string {
	t.Helper()
	ws := workspace(t, map[string]string{
		".claude/settings.json":  hooksSettings,
		".claude/hooks/guard.sh": guardScript,
		".claude/hooks/log.sh":   logScript,
		"build/out.txt":          "artefact\n",
	})
	for _, s := range []string{"guard.sh", "log.sh"} {
		if err := os.Chmod(filepath.Join(ws, ".claude", "hooks", s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func hooksScenario() string {
	return settingsScenario([]settingsCall{
		{"bash", map[string]any{"command": "rm -rf build", "description": "clean"}},
		{"bash", map[string]any{"command": "echo fine", "description": "say fine"}},
	})
}

func TestTrustedProjectHooksBlockABashCommandAddContextAndSeeEveryEvent(t *testing.T) {
	srv := server(t, hooksScenario())
	ws := hooksWorkspace(t)
	r := atomic(t, srv, "anthropic", ws, "-p", "clean the build", "--trust-project-settings", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	log := srv.Log()
	if len(log) != 2 {
		t.Fatalf("%d model requests, want 2", len(log))
	}
	first, _ := json.Marshal(log[0].Messages)
	if !strings.Contains(string(first), "The deploy freeze is on until Monday.") || !strings.Contains(string(first), "clean the build") {
		t.Errorf("the first request lacks the prompt or the UserPromptSubmit hook's context: %s", first)
	}
	res := log[1].LastToolResults()
	if len(res) != 2 {
		t.Fatalf("%d tool results, want 2", len(res))
	}
	if !strings.Contains(res[0].Content, "rm -rf is blocked by the project's guard; delete files one by one") {
		t.Errorf("the blocked command's result %q lacks the hook's stderr", res[0].Content)
	}
	if _, err := os.Stat(filepath.Join(ws, "build", "out.txt")); err != nil {
		t.Errorf("the blocked rm -rf ran: %v", err)
	}
	if res[1].IsError || !strings.Contains(res[1].Content, "fine") {
		t.Errorf("the allowed command: %v %q", res[1].IsError, res[1].Content)
	}

	logged, err := os.ReadFile(filepath.Join(ws, "hooks.log"))
	if err != nil {
		t.Fatalf("no hook log: %v", err)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(logged)), "\n") {
		body, env, _ := strings.Cut(line, " key=")
		if env != "none" {
			t.Errorf("a hook saw the provider key: %q", line)
		}
		var in struct {
			Event     string          `json:"hook_event_name"`
			Session   string          `json:"session_id"`
			Cwd       string          `json:"cwd"`
			Tool      string          `json:"tool_name"`
			ToolInput json.RawMessage `json:"tool_input"`
			Prompt    string          `json:"prompt"`
		}
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatalf("hook stdin is not JSON: %q: %v", body, err)
		}
		if in.Session == "" || in.Cwd != ws {
			t.Errorf("hook stdin lacks session_id or cwd: %s", body)
		}
		key := in.Event
		if in.Tool != "" {
			key += " " + in.Tool + " " + string(in.ToolInput)
		}
		if in.Event == "UserPromptSubmit" && in.Prompt != "clean the build" {
			t.Errorf("UserPromptSubmit prompt %q", in.Prompt)
		}
		seen[key]++
	}
	want := map[string]int{
		"SessionStart": 1, "UserPromptSubmit": 1, "Stop": 1, "SessionEnd": 1,
		`PreToolUse Bash {"command":"echo fine","description":"say fine"}`:  1,
		`PostToolUse Bash {"command":"echo fine","description":"say fine"}`: 1,
	}
	for k, n := range want {
		if seen[k] != n {
			t.Errorf("hook log: %q seen %d times, want %d (all: %v)", k, seen[k], n, seen)
		}
	}
	for k := range seen {
		if strings.Contains(k, "rm -rf") && !strings.HasPrefix(k, "PreToolUse") {
			t.Errorf("the blocked call reached %q", k)
		}
	}

	var runs, blocked int
	for _, e := range events(t, r.stdout) {
		if e.Type != "hook.run" {
			continue
		}
		runs++
		d := data[struct {
			Event, Command, Outcome, Message, Tool string
		}](t, e)
		if d.Outcome == "blocked" {
			blocked++
			if d.Event != "PreToolUse" || d.Tool != "Bash" || !strings.Contains(d.Command, "guard.sh") || !strings.Contains(d.Message, "rm -rf is blocked") {
				t.Errorf("blocked hook.run: %+v", d)
			}
		}
	}
	if blocked != 1 || runs < 8 {
		t.Errorf("stream-json: %d hook.run events, %d blocked; want every run reported and one block", runs, blocked)
	}
}

func TestAnUntrustedProjectsHooksDoNotRunAndAWarningSaysSo(t *testing.T) {
	srv := server(t, hooksScenario())
	ws := hooksWorkspace(t)
	r := atomic(t, srv, "anthropic", ws, "-p", "clean the build", "--allowed-tools", "bash")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "hooks.log")); err == nil {
		t.Error("an untrusted project's hooks ran")
	}
	first, _ := json.Marshal(srv.Log()[0].Messages)
	if strings.Contains(string(first), "deploy freeze") {
		t.Error("an untrusted project's UserPromptSubmit hook added context")
	}
	if !strings.Contains(r.stderr, "hook command(s), which run as you: not run; give --trust-project-settings") {
		t.Errorf("stderr %q: want a warning that the project's hooks were not run", r.stderr)
	}
}

// guardedAgent is an agent file whose own hooks: guard its bash calls.
const guardedAgent = `---
name: guarded
description: Cleans up, with a guard on its commands
tools: Bash
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh'
---
You clean up build output.
`

const guardedScenario = `
rules:
  - {name: lead-final, match: {first_user_contains: "clean up", has_tool_results: true}, respond: {text: "done"}}
  - name: lead
    match: {first_user_contains: "clean up"}
    respond: {tool_calls: [{name: task, input: {description: "Clean the build", prompt: "SUB clean the build", subagent_type: guarded}}]}
  - {name: sub-final, match: {first_user_contains: "SUB", has_tool_results: true}, respond: {text: "tried"}}
  - name: sub
    match: {first_user_contains: "SUB"}
    respond: {tool_calls: [{name: bash, input: {command: "rm -rf build", description: "clean"}}]}
`

func guardedWorkspace(t *testing.T) string {
	t.Helper()
	ws := workspace(t, map[string]string{
		".claude/agents/guarded.md": guardedAgent,
		".claude/hooks/guard.sh":    guardScript,
		"build/out.txt":             "artefact\n",
	})
	if err := os.Chmod(filepath.Join(ws, ".claude", "hooks", "guard.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestAnAgentFilesOwnHooksGuardThatAgentsCommandsOnceTheProjectIsTrusted(t *testing.T) {
	srv := server(t, guardedScenario)
	ws := guardedWorkspace(t)
	r := atomic(t, srv, "anthropic", ws, "-p", "clean up", "--allowed-tools", "bash(rm:*)", "--trust-project-settings")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	subs := loopback.ByRule(srv.Log(), "sub-final")
	if len(subs) != 1 {
		t.Fatalf("the sub-agent made %d second requests, want 1", len(subs))
	}
	if res := subs[0].LastToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "rm -rf is blocked by the project's guard") {
		t.Fatalf("the guarded agent's rm -rf result lacks its hook's stderr: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "build", "out.txt")); err != nil {
		t.Errorf("the blocked rm -rf ran: %v", err)
	}
}

func TestAnUntrustedProjectsAgentFileHooksDoNotRunAndAWarningNamesTheFile(t *testing.T) {
	srv := server(t, guardedScenario)
	ws := guardedWorkspace(t)
	r := atomic(t, srv, "anthropic", ws, "-p", "clean up", "--allowed-tools", "bash(rm:*)")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "hooks in the project's agent files "+filepath.Join(ws, ".claude", "agents", "guarded.md")) {
		t.Errorf("no warning names the agent file whose hooks were held back:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "build")); !os.IsNotExist(err) {
		t.Errorf("an untrusted agent file's hook stopped the command (build still there: %v)", err)
	}
}
