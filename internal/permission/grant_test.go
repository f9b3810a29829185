package permission

import (
	"context"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/tools"
)

func TestAGrantAllowsItsAgentsCallsUntilRevokedAndNeverPastADeny(t *testing.T) {
	deny, err := ParseClaudeRule(RuleDeny, "Bash(git push:*)", "settings.json", RuleDirs{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGate(Options{Mode: Default, Root: "/w", Disallowed: []string{"edit"}, Settings: []ClaudeRule{deny}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	status := Request{AgentID: "lead", Tool: "bash", Kind: tools.Exec, Subject: "git status"}
	decide := func(r Request) Decision { return g.Decide(ctx, r) }
	if decide(status).Allow {
		t.Fatal("git status allowed before any grant")
	}
	if err := g.Grant("lead", []string{"Bash(git status:*)", "Bash(git push:*)", "Write", "Edit", "WebFetch"}); err != nil {
		t.Fatal(err)
	}
	if d := decide(status); !d.Allow {
		t.Fatalf("granted git status denied: %s", d.Reason)
	}
	if d := decide(Request{AgentID: "lead", Tool: "write", Kind: tools.Edit, Subject: "/w/a.txt"}); !d.Allow {
		t.Fatalf("granted Write denied: %s", d.Reason)
	}
	if d := decide(Request{AgentID: "lead", Tool: "web_fetch", Kind: tools.Exec, Subject: "https://example.com"}); !d.Allow {
		t.Fatalf("granted WebFetch (Claude Code's name) denied: %s", d.Reason)
	}
	if d := decide(Request{AgentID: "explore-1", Tool: "bash", Kind: tools.Exec, Subject: "git status"}); d.Allow {
		t.Fatal("a grant to the lead allowed another agent's call")
	}
	if d := decide(Request{AgentID: "lead", Tool: "bash", Kind: tools.Exec, Subject: "git push origin main"}); d.Allow {
		t.Fatal("a grant widened past a settings deny rule")
	}
	if d := decide(Request{AgentID: "lead", Tool: "edit", Kind: tools.Edit, Subject: "/w/a.txt"}); d.Allow {
		t.Fatal("a grant widened past --disallowed-tools")
	}
	if d := decide(Request{AgentID: "lead", Tool: "bash", Kind: tools.Exec, Subject: "git status; rm -rf x"}); d.Allow {
		t.Fatal("a grant of git status allowed a line with another command")
	}
	g.SetMode(Plan)
	if d := decide(Request{AgentID: "lead", Tool: "write", Kind: tools.Edit, Subject: "/w/a.txt"}); d.Allow {
		t.Fatal("a grant allowed a write in plan mode")
	}
	g.SetMode(Default)
	g.Revoke("lead")
	if decide(status).Allow {
		t.Fatal("git status still allowed after Revoke")
	}
}

func TestAGrantNamesTheRulesAtomicCannotGrantAndGrantsTheRest(t *testing.T) {
	g, _ := NewGate(Options{Mode: Default})
	err := g.Grant("lead", []string{"Write", "NotebookEdit", "Bash(oops"})
	if err == nil || !strings.Contains(err.Error(), "NotebookEdit, Bash(oops") {
		t.Fatalf("err = %v, want one naming NotebookEdit and Bash(oops", err)
	}
	if d := g.Decide(context.Background(), Request{AgentID: "lead", Tool: "write", Kind: tools.Edit, Subject: "a"}); !d.Allow {
		t.Fatalf("Write, which Atomic has, was not granted: %s", d.Reason)
	}
	if d := g.Decide(context.Background(), Request{AgentID: "lead", Tool: "bash", Kind: tools.Exec, Subject: "oops"}); d.Allow {
		t.Fatal("a rule that does not parse allowed something")
	}
}
