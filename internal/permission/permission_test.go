package permission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/tools"
)

type answerer struct {
	ans   Answer
	calls int
}

func (a *answerer) Ask(ctx context.Context, req Request) (Answer, error) {
	a.calls++
	return a.ans, nil
}

func TestGateDecidesByModeAndKind(t *testing.T) {
	bash := Request{Tool: "bash", Kind: tools.Exec, Subject: "go test ./..."}
	edit := Request{Tool: "edit", Kind: tools.Edit, Subject: "main.go"}
	read := Request{Tool: "read", Kind: tools.ReadOnly, Subject: "main.go"}
	cases := []struct {
		name  string
		mode  Mode
		req   Request
		allow bool
		want  string // substring of the denial
	}{
		{"read always allowed in plan", Plan, read, true, ""},
		{"edit denied in plan", Plan, edit, false, "plan mode"},
		{"bash denied in plan", Plan, bash, false, "plan mode"},
		{"edit allowed in acceptEdits", AcceptEdits, edit, true, ""},
		{"bash needs prompt in acceptEdits, headless denies naming flags", AcceptEdits, bash, false, "--allowed-tools 'bash(go test:*)'"},
		{"edit headless in default names acceptEdits", Default, edit, false, "--permission-mode acceptEdits"},
		{"bypass allows bash", BypassPermissions, bash, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := NewGate(Options{Mode: c.mode})
			if err != nil {
				t.Fatal(err)
			}
			d := g.Decide(context.Background(), c.req)
			if d.Allow != c.allow {
				t.Fatalf("allow = %v, want %v (%s)", d.Allow, c.allow, d.Reason)
			}
			if !strings.Contains(d.Reason, c.want) {
				t.Fatalf("reason %q does not contain %q", d.Reason, c.want)
			}
		})
	}
}

func TestGateAllowedAndDisallowedPatterns(t *testing.T) {
	g, err := NewGate(Options{Mode: Default, Allowed: []string{"bash(go test:*)"}, Disallowed: []string{"bash(rm:*)", "write"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if d := g.Decide(ctx, Request{Tool: "bash", Kind: tools.Exec, Subject: "go test -race ./..."}); !d.Allow {
		t.Fatalf("go test should be allowed: %s", d.Reason)
	}
	if d := g.Decide(ctx, Request{Tool: "bash", Kind: tools.Exec, Subject: "go testify"}); d.Allow {
		t.Fatal("go testify must not match go test:*")
	}
	if d := g.Decide(ctx, Request{Tool: "bash", Kind: tools.Exec, Subject: "rm -rf /"}); d.Allow || !strings.Contains(d.Reason, "disallowed") {
		t.Fatalf("rm should be disallowed: %+v", d)
	}
	bypass, _ := NewGate(Options{Mode: BypassPermissions, Disallowed: []string{"write"}})
	if d := bypass.Decide(ctx, Request{Tool: "write", Kind: tools.Edit}); d.Allow {
		t.Fatal("disallowed patterns apply even in bypassPermissions")
	}
}

func TestGateAsksAndRemembersSessionAllow(t *testing.T) {
	a := &answerer{ans: AllowSession}
	g, _ := NewGate(Options{Mode: Default, Asker: a})
	ctx := context.Background()
	req := Request{Tool: "bash", Kind: tools.Exec, Subject: "make build"}
	if d := g.Decide(ctx, req); !d.Allow {
		t.Fatal("allowed for session")
	}
	if d := g.Decide(ctx, Request{Tool: "bash", Kind: tools.Exec, Subject: "make build -j4"}); !d.Allow {
		t.Fatal("a later make build should be covered by the session rule bash(make build:*)")
	}
	if a.calls != 1 {
		t.Fatalf("asked %d times, want 1", a.calls)
	}
	a.ans = Deny
	if d := g.Decide(ctx, Request{Tool: "bash", Kind: tools.Exec, Subject: "curl x", AgentName: "explore-1"}); d.Allow || !strings.Contains(d.Reason, "explore-1") {
		t.Fatalf("denial should name the agent: %+v", d)
	}
}

type blockingAsker struct{}

func (blockingAsker) Ask(ctx context.Context, req Request) (Answer, error) {
	<-ctx.Done()
	return Deny, ctx.Err()
}

func TestGateNeverHangsPastContext(t *testing.T) {
	g, _ := NewGate(Options{Mode: Default, Asker: blockingAsker{}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	d := g.Decide(ctx, Request{Tool: "bash", Kind: tools.Exec, Subject: "ls"})
	if d.Allow || !strings.Contains(d.Reason, "no answer") {
		t.Fatalf("got %+v", d)
	}
}

func TestParsePatternErrorsAndList(t *testing.T) {
	for _, bad := range []string{"", "bash(", "(x)", "ba sh"} {
		if _, err := ParsePattern(bad); err == nil {
			t.Errorf("ParsePattern(%q) should fail", bad)
		}
	}
	got := ParseList("read, bash(go test:*) edit")
	want := []string{"read", "bash(go test:*)", "edit"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("ParseList = %q, want %q", got, want)
	}
	if _, err := ParseMode("yolo"); err == nil || !strings.Contains(err.Error(), "yolo") {
		t.Fatalf("ParseMode error should name the bad mode: %v", err)
	}
}

func TestAHeadlessDenialNamesTheAgentAndTheCLIItRunsIn(t *testing.T) {
	g, _ := NewGate(Options{Mode: Default})
	req := Request{ID: "r1", AgentID: "reviewer-1", AgentName: "reviewer-1", Backend: "claude-code",
		Tool: "bash", Kind: tools.Exec, Subject: "make deploy", Input: json.RawMessage(`{"command":"make deploy"}`)}
	d := g.Decide(context.Background(), req)
	if d.Allow || !strings.Contains(d.Reason, "requested by reviewer-1 in claude-code") {
		t.Fatalf("decision %+v: the reason should name the agent and its backend", d)
	}
}

func TestDenyForTheSessionRefusesTheSameCallAgainWithoutAsking(t *testing.T) {
	tests := []struct {
		name          string
		refused, same Request
		other         Request // still asked
	}{
		{"a command", Request{Tool: "bash", Kind: tools.Exec, Subject: "make deploy"},
			Request{Tool: "bash", Kind: tools.Exec, Subject: "make deploy"},
			Request{Tool: "bash", Kind: tools.Exec, Subject: "make build"}},
		{"a file tool", Request{Tool: "write", Kind: tools.Edit, Subject: "a.txt"},
			Request{Tool: "write", Kind: tools.Edit, Subject: "b.txt"},
			Request{Tool: "edit", Kind: tools.Edit, Subject: "a.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &answerer{ans: DenySession}
			g, _ := NewGate(Options{Mode: Default, Asker: a, Root: t.TempDir()})
			ctx := context.Background()
			if d := g.Decide(ctx, tt.refused); d.Allow {
				t.Fatal("the refused call was allowed")
			}
			d := g.Decide(ctx, tt.same)
			if d.Allow || !strings.Contains(d.Reason, "for this session") {
				t.Errorf("the same call again: %+v, want denied for this session", d)
			}
			if a.calls != 1 {
				t.Errorf("asked %d times, want once", a.calls)
			}
			a.ans = AllowOnce
			if d := g.Decide(ctx, tt.other); !d.Allow || a.calls != 2 {
				t.Errorf("another call: %+v after %d asks, want it asked and allowed", d, a.calls)
			}
		})
	}
}

func TestADenialOfANestedAgentNamesItsPathFromTheLead(t *testing.T) {
	paths := map[string]string{"explore-3": "lead › reviewer-1 › explore-3", "explore-1": "lead › explore-1"}
	for _, c := range []struct {
		name string
		mode Mode
		req  Request
		want string
	}{
		{"headless", Default, Request{AgentID: "explore-3", AgentName: "explore-3", Tool: "bash", Kind: tools.Exec, Subject: "make deploy"},
			`bash "make deploy" (requested by lead › reviewer-1 › explore-3)`},
		{"plan mode", Plan, Request{AgentID: "explore-3", AgentName: "explore-3", Tool: "write", Kind: tools.Edit, Subject: "a.txt"},
			`write "a.txt" (requested by lead › reviewer-1 › explore-3)`},
		{"the lead's child", Default, Request{AgentID: "explore-1", AgentName: "explore-1", Tool: "write", Kind: tools.Edit, Subject: "a.txt"},
			`write "a.txt" (requested by explore-1)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, _ := NewGate(Options{Mode: c.mode, Root: t.TempDir()})
			g.SetPathOf(func(id string) string { return paths[id] })
			d := g.Decide(context.Background(), c.req)
			if d.Allow || !strings.Contains(d.Reason, c.want) {
				t.Fatalf("decision %+v: want the reason to say %q", d, c.want)
			}
		})
	}
}
