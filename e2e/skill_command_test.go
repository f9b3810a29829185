//go:build unix

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// skillCommandScenario: the lead runs the skill's script once the prompt
// holds the loaded skill (its body with the arguments), else says so.
const skillCommandScenario = `
rules:
  - name: done
    match: {has_tool_results: true}
    respond: {text: "Done."}
  - name: invoked
    match: {last_user_contains: "SECRET-SKILL-BODY: run scripts/fill.sh on form.pdf."}
    respond:
      tool_calls:
        - {name: bash, input: {command: "sh .claude/skills/pdf/scripts/fill.sh form.pdf"}}
  - name: not-loaded
    respond: {text: "not loaded"}
`

// atomic -p "/pdf form.pdf" runs the skill as Claude Code's -p does: the
// lead's prompt is the skill loaded (body, folder, files), and its
// allowed-tools hold for that turn only when the project is trusted.
func TestAHeadlessSlashSkillSendsTheLeadTheLoadedSkillAndItsTrustedGrantHolds(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			ws := workspace(t, skillFiles)
			for _, c := range []struct {
				flags  []string
				result string
			}{
				{[]string{"--trust-project-settings"}, "filled-by-skill form.pdf"},
				{nil, "permission denied"},
				{[]string{"--trust-project-settings", "--permission-mode", "plan"}, "plan mode"},
			} {
				srv := server(t, skillCommandScenario)
				r := atomic(t, srv, prov, ws, append([]string{"-p", "/pdf form.pdf"}, c.flags...)...)
				if r.code != 0 {
					t.Fatalf("%v: code %d: %s", c.flags, r.code, r.stderr)
				}
				log := srv.Log()
				if len(log) != 2 {
					t.Fatalf("%v: %d requests (%v), want 2: the skill invoked, the script's result", c.flags, len(log), ruleNames(log))
				}
				first := log[0].LastUserText()
				for _, want := range []string{"<command-name>/pdf</command-name>", "Base directory for this skill: " + filepath.Join(ws, ".claude", "skills", "pdf"), "scripts/fill.sh"} {
					if !strings.Contains(first, want) {
						t.Errorf("%v: the lead's prompt lacks %q:\n%s", c.flags, want, first)
					}
				}
				if res := log[1].LastToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, c.result) {
					t.Errorf("%v: script result %+v, want %q", c.flags, res, c.result)
				}
			}
		})
	}
}
