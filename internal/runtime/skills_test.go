package runtime

import (
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/skills"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

const skillTurns = `
rules:
  - {name: again-done, match: {last_user_contains: again, has_tool_results: true}, respond: {text: "second"}}
  - name: again
    match: {last_user_contains: again}
    respond: {tool_calls: [{name: bash, input: {command: "sh fill.sh"}}]}
  - name: run
    match: {tool_result_contains: "Base directory for this skill"}
    respond: {tool_calls: [{name: bash, input: {command: "sh fill.sh"}}]}
  - {name: done, match: {has_tool_results: true}, respond: {text: "first"}}
  - name: load
    respond: {tool_calls: [{name: skill, input: {name: fill}}]}
`

func TestASkillsAllowedToolsHoldUntilTheLeadsTurnEnds(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"fill.sh":                      "echo filled\n",
		".claude/skills/fill/SKILL.md": "---\nname: fill\ndescription: Fills\nallowed-tools: Bash(sh fill.sh)\n---\nRun sh fill.sh.",
	})
	set, problems := skills.Load(skills.Dirs(root, ""))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	gate, err := permission.NewGate(permission.Options{Mode: permission.Default, Root: root}) // headless: asks are denials
	if err != nil {
		t.Fatal(err)
	}
	p, srv := testkit.Model(t, skillTurns)
	rt, run := openRun(t, skillTurns, Config{Provider: p, Gate: gate, Skills: set, Workspace: tools.Workspace{Root: root}})
	defer rt.Close()
	defer run.Stop(time.Second)
	if _, ran := run.Submit("use the skill").End(); !ran {
		t.Fatal("first turn did not run")
	}
	if res := lastToolResults(srv); len(res) != 1 || strings.TrimSpace(res[0].Content) != "filled" {
		t.Fatalf("with the skill loaded: %+v, want the command to run", res)
	}
	if _, ran := run.Submit("again").End(); !ran {
		t.Fatal("second turn did not run")
	}
	if res := lastToolResults(srv); len(res) != 1 || !strings.Contains(res[0].Content, "permission denied") {
		t.Fatalf("in the next turn: %+v, want the command denied (the grant ended with the turn)", res)
	}
}
