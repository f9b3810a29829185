package permission

import (
	"context"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/tools"
)

func TestMCPToolPatternsCoverAToolAServerOrAGlob(t *testing.T) {
	create := Request{Tool: "mcp__github__create_issue", Kind: tools.Exec, Subject: `{"title":"x"}`}
	list := Request{Tool: "mcp__github__list_issues", Kind: tools.ReadOnly}
	other := Request{Tool: "mcp__gitlab__create_issue", Kind: tools.Exec}
	cases := []struct {
		name     string
		opts     Options
		req      Request
		allow    bool
		inReason string
	}{
		{"glob denies every tool of the server, naming the pattern", Options{Disallowed: []string{"mcp__github__*"}}, create, false, `--disallowed-tools "mcp__github__*"`},
		{"glob denies a read-only tool too", Options{Disallowed: []string{"mcp__github__*"}}, list, false, `"mcp__github__*"`},
		{"server name denies the whole server", Options{Disallowed: []string{"mcp__github"}}, create, false, `"mcp__github"`},
		{"server name does not cover a server it prefixes", Options{Disallowed: []string{"mcp__git"}, Allowed: []string{"mcp__gitlab__*"}}, other, true, ""},
		{"glob allows", Options{Allowed: []string{"mcp__github__*"}}, create, true, ""},
		{"server name allows", Options{Allowed: []string{"mcp__github"}}, create, true, ""},
		{"glob of another server does not allow", Options{Allowed: []string{"mcp__github__*"}}, other, false, "needs approval"},
		{"exact name allows", Options{Allowed: []string{"mcp__github__create_issue"}}, create, true, ""},
		{"headless denial names the tool to allow", Options{}, create, false, "--allowed-tools 'mcp__github__create_issue'"},
		{"plan mode runs a read-only MCP tool", Options{Mode: Plan}, list, true, ""},
		{"plan mode denies an MCP tool that may act", Options{Mode: Plan}, create, false, "plan mode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := NewGate(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			d := g.Decide(context.Background(), c.req)
			if d.Allow != c.allow {
				t.Fatalf("allow = %v, want %v (%s)", d.Allow, c.allow, d.Reason)
			}
			if !strings.Contains(d.Reason, c.inReason) {
				t.Errorf("reason %q does not contain %q", d.Reason, c.inReason)
			}
		})
	}
}
