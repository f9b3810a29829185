//go:build unix

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// skillsScenario: asked to fill the form, the model loads the pdf skill
// (Claude Code's spelling of the input), then runs the script the skill
// allows; asked to "skip the skill", it runs the script at once; asked
// to delegate, the pdf-filler agent (whose file preloads the skill)
// answers whether the skill is in its system prompt.
const skillsScenario = `
rules:
  - name: sub-agent-has-skill
    match: {system_contains: "Base directory for this skill"}
    respond: {text: "PRELOADED"}
  - name: sub-agent-lacks-skill
    match: {system_contains: "You fill PDF forms"}
    respond: {text: "NOT PRELOADED"}
  - name: run-script
    match: {tool_result_contains: "Base directory for this skill"}
    respond:
      tool_calls:
        - {name: bash, input: {command: "sh .claude/skills/pdf/scripts/fill.sh form.pdf"}}
  - name: done
    match: {has_tool_results: true}
    respond: {text: "Done."}
  - name: delegate
    match: {last_user_contains: "delegate"}
    respond:
      tool_calls:
        - {name: task, input: {description: fill, prompt: "fill it", subagent_type: pdf-filler}}
  - name: skip-the-skill
    match: {last_user_contains: "skip the skill"}
    respond:
      tool_calls:
        - {name: bash, input: {command: "sh .claude/skills/pdf/scripts/fill.sh form.pdf"}}
  - name: load-skill
    match: {has_tool_results: false}
    respond:
      text: "Loading the skill."
      tool_calls:
        - {name: skill, input: {skill: pdf, args: form.pdf}}
`

// skillFiles is a real-shaped .claude folder with one skill and an agent
// file that preloads it.
var skillFiles = map[string]string{
	".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms with the bundled script\n" +
		"allowed-tools: Bash(sh .claude/skills/pdf/scripts/fill.sh:*)\n---\n# Filling PDFs\nSECRET-SKILL-BODY: run scripts/fill.sh on $ARGUMENTS.\n",
	".claude/skills/pdf/scripts/fill.sh": "echo filled-by-skill \"$1\"\n",
	".claude/agents/pdf-filler.md":       "---\nname: pdf-filler\ndescription: Fills PDF forms\nskills: [pdf]\n---\nYou fill PDF forms.\n",
}

func TestAModelLoadsASkillByNameAndATrustedSkillsAllowedToolsLetItsScriptRunHeadless(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, skillsScenario)
			ws := workspace(t, skillFiles)
			r := atomic(t, srv, prov, ws, "-p", "fill form.pdf", "--trust-project-settings")
			if r.code != 0 {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			log := srv.Log()
			if len(log) != 3 {
				t.Fatalf("%d requests (%v), want 3: load the skill, run the script, answer", len(log), ruleNames(log))
			}
			first, _ := json.Marshal(log[0])
			if !strings.Contains(strings.Join(log[0].Tools, ","), "skill") || strings.Contains(string(first), "SECRET-SKILL-BODY") {
				t.Errorf("first request: tools %v; the skill tool must be offered and the body not sent before it is loaded", log[0].Tools)
			}
			res := log[1].LastToolResults()
			dir := filepath.Join(ws, ".claude", "skills", "pdf")
			if len(res) != 1 || !strings.Contains(res[0].Content, "SECRET-SKILL-BODY: run scripts/fill.sh on form.pdf.") ||
				!strings.Contains(res[0].Content, "Base directory for this skill: "+dir) || !strings.Contains(res[0].Content, "scripts/fill.sh") {
				t.Fatalf("skill result %+v: want the body with its arguments, its folder and its other files", res)
			}
			if res := log[2].LastToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "filled-by-skill form.pdf") {
				t.Fatalf("script result %+v: the skill's allowed-tools should have let it run headless", res)
			}

			// Without the skill loaded in the turn, the same command is
			// asked, and headless that is a denial.
			srv2 := server(t, skillsScenario)
			r = atomic(t, srv2, prov, ws, "-p", "skip the skill and fill form.pdf", "--trust-project-settings")
			if r.code != 0 {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			log = srv2.Log()
			if res := log[len(log)-1].LastToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "permission denied") {
				t.Fatalf("script result without the skill %+v: want a denial", res)
			}

			// A project's skill is the repository's: without trust its
			// allowed-tools are held, and a warning says so.
			srv3 := server(t, skillsScenario)
			r = atomic(t, srv3, prov, ws, "-p", "fill form.pdf")
			if r.code != 0 || !strings.Contains(r.stderr, "the project's skills would allow tools without asking: pdf (Bash(sh .claude/skills/pdf/scripts/fill.sh:*))") {
				t.Fatalf("code %d, stderr %q: want the held grant named", r.code, r.stderr)
			}
			log = srv3.Log()
			if res := log[len(log)-1].LastToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "permission denied") {
				t.Fatalf("script result with an untrusted project skill %+v: want a denial", res)
			}
		})
	}
}

func TestAnAgentFilesSkillsArePreloadedIntoItsSystemPrompt(t *testing.T) {
	srv := server(t, skillsScenario)
	ws := workspace(t, skillFiles)
	r := atomic(t, srv, "anthropic", ws, "-p", "delegate the form")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	var sub, report string
	for _, e := range srv.Log() {
		if strings.Contains(e.System, "You fill PDF forms") {
			sub = e.System
		}
		for _, res := range e.LastToolResults() {
			report += res.Content
		}
	}
	if !strings.Contains(sub, "SECRET-SKILL-BODY: run scripts/fill.sh on $ARGUMENTS.") || !strings.Contains(report, "PRELOADED") || strings.Contains(report, "NOT PRELOADED") {
		t.Fatalf("sub-agent system prompt %q, its report %q: want the pdf skill preloaded", sub, report)
	}
}

func ruleNames(log []loopback.LogEntry) []string {
	var out []string
	for _, e := range log {
		out = append(out, e.Rule)
	}
	return out
}
