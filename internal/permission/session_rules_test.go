package permission

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/tools"
)

func TestPermissionsAllowAddsASessionRuleThatNeverWidensPastDenyRulesOrPlanMode(t *testing.T) {
	deny, err := ParseClaudeRule(RuleDeny, "Bash(git push:*)", "/w/.claude/settings.json", RuleDirs{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGate(Options{Mode: Default, Root: "/w", Disallowed: []string{"bash(rm:*)"}, Settings: []ClaudeRule{deny}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(tool string, kind tools.Kind, subject string) (Decision, bool) {
		return g.Check(Request{AgentID: "lead", Tool: tool, Kind: kind, Subject: subject})
	}
	if _, decided := check("bash", tools.Exec, "git status"); decided {
		t.Fatal("git status decided before any rule")
	}
	if err := g.AllowForSession("Bash"); err != nil {
		t.Fatal(err)
	}
	if d, decided := check("bash", tools.Exec, "git status"); !decided || !d.Allow {
		t.Fatalf("bash allowed for the session, git status still asked or denied: %+v", d)
	}
	if d, _ := check("bash", tools.Exec, "echo a && rm -rf x"); d.Allow || !strings.Contains(d.Reason, "--disallowed-tools") {
		t.Fatalf("a session allow of all bash widened past --disallowed-tools: %+v", d)
	}
	if d, _ := check("bash", tools.Exec, "git push origin main"); d.Allow {
		t.Fatal("a session allow widened past a settings deny rule")
	}
	if err := g.AllowForSession("edit"); err != nil {
		t.Fatal(err)
	}
	g.SetMode(Plan)
	if d, _ := check("edit", tools.Edit, "/w/a.go"); d.Allow {
		t.Fatal("a session allow of edit allowed an edit in plan mode")
	}
	if err := g.AllowForSession("NotebookEdit"); err == nil || !strings.Contains(err.Error(), "no tool Atomic has") {
		t.Fatalf("a rule naming no tool was accepted: %v", err)
	}
}

func TestPermissionsDenyDeniesEachSimpleCommandEvenInBypassMode(t *testing.T) {
	g, err := NewGate(Options{Mode: BypassPermissions, Root: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{AgentID: "lead", Tool: "bash", Kind: tools.Exec, Subject: "echo hi && curl https://example.com"}
	if d, _ := g.Check(req); !d.Allow {
		t.Fatalf("bypass mode denied before the rule: %s", d.Reason)
	}
	if err := g.DenyForSession("Bash(curl:*)"); err != nil {
		t.Fatal(err)
	}
	d, decided := g.Check(req)
	if !decided || d.Allow || !strings.Contains(d.Reason, `/permissions deny "bash(curl:*)"`) {
		t.Fatalf("a session deny rule did not deny the line's curl, naming itself: %+v", d)
	}
	if d, _ := g.Check(Request{AgentID: "lead", Tool: "web_fetch", Kind: tools.Exec, Subject: "https://example.com"}); !d.Allow {
		t.Fatalf("a bash deny rule denied another tool: %s", d.Reason)
	}
}

func TestRulesNameEachRuleInForceAndWhereItCameFrom(t *testing.T) {
	ask, err := ParseClaudeRule(RuleAsk, "Bash(git commit:*)", "/home/u/.claude/settings.json", RuleDirs{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	allow, err := ParseClaudeRule(RuleAllow, "Bash(make:*)", "/w/.claude/settings.json", RuleDirs{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGate(Options{Mode: Default, Root: "/w",
		Allowed: []string{"read", "bash(go test:*)"}, AllowedFrom: []string{"/home/u/.config/atomic/config.json"},
		Disallowed: []string{"write"}, Settings: []ClaudeRule{ask, allow}})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.AllowForSession("web_fetch"); err != nil {
		t.Fatal(err)
	}
	if err := g.DenyForSession("bash(curl:*)"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range g.Rules() {
		got = append(got, string(r.Kind)+" "+r.Rule+" · "+r.Source)
	}
	want := []string{
		"deny write · --disallowed-tools",
		"deny bash(curl:*) · /permissions deny (this session)",
		"ask Bash(git commit:*) · /home/u/.claude/settings.json",
		"allow read · /home/u/.config/atomic/config.json",
		"allow bash(go test:*) · --allowed-tools",
		"allow Bash(make:*) · /w/.claude/settings.json",
		"allow web_fetch · allowed for this session",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
