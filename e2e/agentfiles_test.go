package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// agentFilesFanOut: the lead starts one sub-agent of each type the
// .claude folders define; each answers only if its own file's prompt is
// in its system prompt.
const agentFilesFanOut = `
rules:
  - {name: auditor, match: {system_contains: AUDITOR-FROM-A-SUBFOLDER}, respond: {text: "auditor done"}}
  - {name: helper, match: {system_contains: HELPER-FROM-HOME}, respond: {text: "helper done"}}
  - {name: svc-planner, match: {system_contains: PLANNER-OF-SVC}, respond: {text: "svc planner done"}}
  - {name: root-planner, match: {system_contains: PLANNER-OF-ROOT}, respond: {text: "the root's planner ran"}}
  - name: lead-done
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "All three reported."}
  - name: lead-fan
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: audit, prompt: AUDIT, subagent_type: auditor}}
        - {name: task, input: {description: help, prompt: HELP, subagent_type: helper}}
        - {name: task, input: {description: plan, prompt: PLAN, subagent_type: planner}}
`

// A Claude Code user's agents, run from a subfolder of the repository:
// the root's .claude/agents (a file in a subfolder of it, named by its
// front matter), a nearer folder's file beating the root's of the same
// name, ~/.claude/agents; and a binary file among them skipped with a
// warning naming it, not loaded as an agent.
func TestAgentFilesLoadFromTheRepositoryRootItsSubfoldersAndTheHomeRunFromASubfolder(t *testing.T) {
	agent := func(name, prompt string) string {
		return "---\nname: " + name + "\ndescription: The " + name + ".\n---\n" + prompt + "\n"
	}
	repo := workspace(t, map[string]string{
		".claude/agents/quality/deep/audit-agent.md": agent("auditor", "AUDITOR-FROM-A-SUBFOLDER"),
		".claude/agents/planner.md":                  agent("planner", "PLANNER-OF-ROOT"),
		".claude/agents/bin.md":                      "\x7fELF\x02\x01\x01\x00\xff\xfe\x00\x00",
		"svc/.claude/agents/planner.md":              agent("planner", "PLANNER-OF-SVC"),
		"svc/api/main.go":                            "package main\n",
	})
	testkit.Git(t, repo, "init", "-q")
	home := workspace(t, map[string]string{".claude/agents/helper.md": agent("helper", "HELPER-FROM-HOME")})
	srv := server(t, agentFilesFanOut)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", filepath.Join(repo, "svc", "api"), "--output-format", "stream-json", "-p", "go")
	cmd.Env = append(cmd.Env, "HOME="+home) // the last HOME is the one the process gets
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	bin := filepath.Join(repo, ".claude", "agents", "bin.md")
	if !strings.Contains(r.stderr, bin+": line 1: not UTF-8 text") {
		t.Errorf("stderr does not name the binary agent file: %q", r.stderr)
	}
	results := map[string]string{}
	for _, e := range events(t, r.stdout) {
		if e.Type == event.SubagentComplete {
			c := data[event.SubagentCompleteData](t, e)
			if !c.Success {
				t.Errorf("%s failed: %s", e.AgentID, c.Error)
			}
			results[e.AgentID] = c.Result
		}
	}
	want := map[string]string{"auditor-1": "auditor done", "helper-1": "helper done", "planner-1": "svc planner done"}
	for id, res := range want {
		if !strings.Contains(results[id], res) {
			t.Errorf("%s's result %q, want %q (all: %v)", id, results[id], res, results)
		}
	}
	for _, e := range srv.Log() {
		if e.Rule == "root-planner" || e.Rule == "" {
			t.Errorf("request %d matched %q: a file of the wrong folder ran", e.Seq, e.Rule)
		}
	}
}
