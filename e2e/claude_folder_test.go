//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// A deny rule in the repository root's .claude/settings.json holds when
// Atomic runs in a subfolder: Claude Code reads only the working
// directory's files there ("cd app && claude" drops the root's rules).
func TestADenyRuleOfTheRepositoryRootHoldsWhenRunFromASubfolder(t *testing.T) {
	srv := server(t, settingsScenario([]settingsCall{
		{"bash", map[string]any{"command": "rm -rf build", "description": "clean"}},
	}))
	repo := workspace(t, map[string]string{
		".claude/settings.json": `{"permissions": {"deny": ["Bash(rm:*)"]}}`,
		"app/build/out.txt":     "artefact\n",
	})
	testkit.Git(t, repo, "init", "-q")
	app := filepath.Join(repo, "app")
	r := atomic(t, srv, "anthropic", app, "-p", "clean", "--permission-mode", "bypassPermissions")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	res := srv.Log()[1].LastToolResults()
	source := filepath.Join(repo, ".claude", "settings.json")
	if len(res) != 1 || !strings.Contains(res[0].Content, `denied by the rule "Bash(rm:*)" in `+source) {
		t.Errorf("rm -rf from a subfolder: %+v; want denied by the root's rule, naming %s", res, source)
	}
	if _, err := os.Stat(filepath.Join(app, "build", "out.txt")); err != nil {
		t.Errorf("the denied rm -rf ran: %v", err)
	}
}

// cwdLogScript is logScript writing to the working directory: hooks run
// in the command sandbox, which lets them write the workspace (the
// subfolder Atomic runs in), not the repository root.
const cwdLogScript = `#!/bin/bash
line=$(tr -d '\n')
printf '%s\n' "$line" >> "$PWD/hooks.log"
`

// claudeFolderScenario: the lead, given the expanded /plan-review, runs a
// blocked and an allowed command, loads a skill and starts one agent of
// each folder; each agent answers only if its own file's prompt is its
// system prompt.
const claudeFolderScenario = `
rules:
  - {name: auditor, match: {system_contains: AUDITOR-FROM-A-SUBFOLDER}, respond: {text: "auditor done"}}
  - {name: helper, match: {system_contains: HELPER-FROM-HOME}, respond: {text: "helper done"}}
  - {name: planner, match: {system_contains: PLANNER-OF-ROOT}, respond: {text: "root planner done"}}
  - name: lead-done
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "All done."}
  - name: lead
    match: {system_contains: "You are Atomic"}
    respond:
      text: "Working."
      tool_calls:
        - {name: bash, input: {command: "rm -rf build", description: clean}}
        - {name: bash, input: {command: "echo fine", description: "say fine"}}
        - {name: skill, input: {skill: pdf}}
        - {name: task, input: {description: audit, prompt: AUDIT, subagent_type: auditor}}
        - {name: task, input: {description: help, prompt: HELP, subagent_type: helper}}
        - {name: task, input: {description: plan, prompt: PLAN, subagent_type: planner}}
`

// The held-out test of issue 25: a real-shaped repository .claude folder
// (hooks that block, add context and log; a skill; agent files in the
// root, a subfolder of it and ~; a command with ! and @), run from a
// subfolder of the repository, trusted, behaves as Claude Code documents.
func TestARealClaudeFolderWorksWhenRunFromASubfolderOfTheRepository(t *testing.T) {
	agent := func(name, prompt string) string {
		return "---\nname: " + name + "\ndescription: The " + name + ".\n---\n" + prompt + "\n"
	}
	repo := workspace(t, map[string]string{
		".claude/settings.json":                 hooksSettings,
		".claude/hooks/guard.sh":                guardScript,
		".claude/hooks/log.sh":                  cwdLogScript,
		".claude/skills/pdf/SKILL.md":           "---\nname: pdf\ndescription: Fill PDF forms with the bundled script\n---\nSECRET-SKILL-BODY: run scripts/fill.sh.\n",
		".claude/skills/pdf/scripts/fill.sh":    "echo filled\n",
		".claude/agents/quality/audit-agent.md": agent("auditor", "AUDITOR-FROM-A-SUBFOLDER"),
		".claude/agents/planner.md":             agent("planner", "PLANNER-OF-ROOT"),
		".claude/commands/plan-review.md": "---\ndescription: Review the plan\nallowed-tools: Bash(sh status.sh:*)\n---\n" +
			"## Context\n- Status: !`sh status.sh now`\n\nReview @notes/plan.md for $ARGUMENTS.\n",
		"app/status.sh":     "echo status-from-script \"$1\"\n",
		"app/notes/plan.md": "PLAN-FILE-CONTENT: migrate the store\n",
		"app/build/out.txt": "artefact\n",
	})
	for _, s := range []string{"guard.sh", "log.sh"} {
		if err := os.Chmod(filepath.Join(repo, ".claude", "hooks", s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Git(t, repo, "init", "-q")
	home := workspace(t, map[string]string{".claude/agents/helper.md": agent("helper", "HELPER-FROM-HOME")})
	app := filepath.Join(repo, "app")
	srv := server(t, claudeFolderScenario)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", app, "-p", "/plan-review the migration", "--trust-project-settings", "--output-format", "stream-json")
	cmd.Env = append(cmd.Env, "HOME="+home) // the last HOME is the one the process gets
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}

	var first, last *int
	log := srv.Log()
	for i := range log {
		switch log[i].Rule {
		case "lead":
			first = &i
		case "lead-done":
			last = &i
		}
	}
	if first == nil || last == nil {
		t.Fatalf("rules %v: want the lead's two requests", ruleNames(log))
	}
	// The command file: its ! line ran in the working directory and its
	// @path was inlined; the UserPromptSubmit hook added its context.
	sent, _ := json.Marshal(log[*first].Messages)
	for _, want := range []string{"- Status: status-from-script now", "PLAN-FILE-CONTENT: migrate the store", "for the migration", "The deploy freeze is on until Monday."} {
		if !strings.Contains(string(sent), want) {
			t.Errorf("the first request lacks %q: %s", want, sent)
		}
	}
	res := log[*last].LastToolResults()
	if len(res) != 6 {
		t.Fatalf("%d tool results, want 6", len(res))
	}
	// The root's PreToolUse guard (its script found by CLAUDE_PROJECT_DIR,
	// the root) blocked rm -rf with its stderr fed back; echo ran.
	if !strings.Contains(res[0].Content, "rm -rf is blocked by the project's guard") {
		t.Errorf("rm -rf: %q; want the guard's stderr", res[0].Content)
	}
	if _, err := os.Stat(filepath.Join(app, "build", "out.txt")); err != nil {
		t.Errorf("the blocked rm -rf ran: %v", err)
	}
	if res[1].IsError || !strings.Contains(res[1].Content, "fine") {
		t.Errorf("echo fine: %v %q", res[1].IsError, res[1].Content)
	}
	skillDir := filepath.Join(repo, ".claude", "skills", "pdf")
	if !strings.Contains(res[2].Content, "SECRET-SKILL-BODY") || !strings.Contains(res[2].Content, "Base directory for this skill: "+skillDir) {
		t.Errorf("skill: %q; want the root's skill body and folder", res[2].Content)
	}
	results := map[string]string{}
	for _, e := range events(t, r.stdout) {
		if e.Type == event.SubagentComplete {
			results[e.AgentID] = data[event.SubagentCompleteData](t, e).Result
		}
	}
	for id, want := range map[string]string{"auditor-1": "auditor done", "helper-1": "helper done", "planner-1": "root planner done"} {
		if !strings.Contains(results[id], want) {
			t.Errorf("%s's result %q, want %q (all: %v)", id, results[id], want, results)
		}
	}

	// The log hook saw every event, with the working directory as cwd.
	logged, err := os.ReadFile(filepath.Join(app, "hooks.log"))
	if err != nil {
		t.Fatalf("no hook log: %v", err)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(logged)), "\n") {
		body := line
		var in struct {
			Event     string          `json:"hook_event_name"`
			Cwd       string          `json:"cwd"`
			Tool      string          `json:"tool_name"`
			ToolInput json.RawMessage `json:"tool_input"`
		}
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatalf("hook stdin is not JSON: %q: %v", body, err)
		}
		if in.Cwd != app {
			t.Errorf("hook cwd %q, want %s", in.Cwd, app)
		}
		key := in.Event
		if in.Tool == "Bash" {
			key += " " + string(in.ToolInput)
		}
		seen[key]++
	}
	for _, k := range []string{"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd",
		`PreToolUse {"command":"echo fine","description":"say fine"}`, `PostToolUse {"command":"echo fine","description":"say fine"}`} {
		if seen[k] != 1 {
			t.Errorf("hook log: %q seen %d times, want 1 (all: %v)", k, seen[k], seen)
		}
	}
}
