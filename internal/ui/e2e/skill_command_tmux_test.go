//go:build unix

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// A project's skill is a slash command in the real terminal, as in Claude
// Code: the / menu lists it marked as a skill, "/release v2.1" sends the
// lead the loaded skill (the chat shows what was typed), and in a trusted
// project its allowed-tools let its script run without asking.
func TestASkillIsInTheSlashMenuAndInvokingItLoadsItForTheLead(t *testing.T) {
	tmp := t.TempDir()
	writeReleaseSkill(t, tmp)
	srv := startServer(t, releaseRules+`  - {name: other, respond: {text: "The skill was not loaded."}}
`)
	s := launchIn(t, tmp, []string{"ANTHROPIC_API_KEY=test-key"},
		"--provider", "anthropic", "--base-url", shellQuote(srv.URL()), "--model", "test-model", "--trust-project-settings")
	s.waitFor("Ask anything")
	s.keys("-l", "/rel")
	s.waitFor("/release", "Cut a release of this project (skill, project)")
	s.keys("Tab") // completes the pick
	s.keys("-l", "v2.1")
	s.waitFor("/release v2.1")
	s.keys("Enter")
	scr := s.waitFor("/release v2.1", "Version v2.1 is out.")
	if strings.Contains(scr, "Release checklist for") || strings.Contains(scr, "Allow") {
		t.Errorf("the chat shows the skill's text or asked for its allowed script:\n%s", scr)
	}
	var got string
	for _, e := range srv.Log() {
		if e.Rule == "release" {
			got = e.LastUserText()
		}
	}
	if !strings.Contains(got, "Base directory for this skill: "+filepath.Join(tmp, "work", ".claude", "skills", "release")) {
		t.Fatalf("the lead's prompt %q lacks the skill's folder\n%s", got, rulesLog(srv, ""))
	}
}

// A skill invoked while the lead still answers an earlier prompt gets its
// allowed-tools for its own turn: the earlier turn's end, which revokes
// the lead's grants, does not take them, so its script runs unasked.
func TestASkillInvokedWhileTheLeadIsBusyKeepsItsGrantForItsOwnTurn(t *testing.T) {
	tmp := t.TempDir()
	writeReleaseSkill(t, tmp)
	srv := startServer(t, releaseRules+`  - {name: slow, match: {last_user_contains: "think slowly"}, respond: {text: "Thought it over.", delay_ms: 1500}}
  - {name: other, respond: {text: "The skill was not loaded."}}
`)
	s := launchIn(t, tmp, []string{"ANTHROPIC_API_KEY=test-key"},
		"--provider", "anthropic", "--base-url", shellQuote(srv.URL()), "--model", "test-model", "--trust-project-settings")
	s.waitFor("Ask anything")
	s.typeLine("think slowly")
	s.waitUntil("the lead's request for the slow prompt", func(string) bool { return len(srv.Log()) > 0 })
	s.typeLine("/release v2.1")
	scr := s.waitFor("Thought it over.", "/release v2.1", "Version v2.1 is out.")
	if strings.Contains(scr, "Allow") {
		t.Errorf("the skill's allowed script was asked for:\n%s", scr)
	}
	var rules []string
	for _, e := range srv.Log() {
		rules = append(rules, e.Rule)
	}
	if strings.Join(rules, ",") != "slow,release,answer" {
		t.Errorf("requests %v, want the slow answer, then the skill's turn", rules)
	}
}

// writeReleaseSkill writes a project with a "release" skill whose
// allowed-tools let it run release.sh.
func writeReleaseSkill(t *testing.T, tmp string) {
	t.Helper()
	testkit.WriteFiles(t, filepath.Join(tmp, "work"), map[string]string{
		".claude/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release of this project\n" +
			"allowed-tools: Bash(sh release.sh:*)\n---\nRelease checklist for $ARGUMENTS: run release.sh with the version.\n",
		"release.sh": "echo released \"$1\"\n",
	})
}

// releaseRules answer the release skill: its prompt gets a call of
// release.sh, whose output gets the answer.
const releaseRules = `
rules:
  - {name: answer, match: {tool_result_contains: "released v2.1"}, respond: {text: "Version v2.1 is out."}}
  - name: release
    match: {last_user_contains: "Release checklist for v2.1: run release.sh"}
    respond:
      tool_calls: [{name: bash, input: {command: "sh release.sh v2.1"}}]
`
