package permission

import (
	"context"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/tools"
)

func fetchReq(url string) Request {
	return Request{Tool: "web_fetch", Kind: tools.Exec, Subject: url}
}

func TestWebFetchDomainRulesMatchTheURLsHost(t *testing.T) {
	cases := []struct {
		rule, url string
		allow     bool
	}{
		{"web_fetch(domain:go.dev)", "https://go.dev/doc/install", true},
		{"web_fetch(domain:go.dev)", "https://GO.dev:443/x", true},
		{"web_fetch(domain:go.dev)", "https://pkg.go.dev/x", false},
		{"web_fetch(domain:go.dev)", "https://go.dev.evil.example/x", false},
		{"web_fetch(domain:go.dev)", "https://evil.example/?u=https://go.dev/", false},
		{"web_fetch(domain:*.go.dev)", "https://pkg.go.dev/x", true},
		{"web_fetch(domain:*.go.dev)", "https://go.dev/x", true},
		{"web_fetch(domain:*.go.dev)", "https://notgo.dev/x", false},
		{"web_fetch(domain:localhost)", "http://localhost:8080/", true},
		{"web_fetch", "https://anything.example/", true},
		{"web_fetch(https://go.dev/doc:*)", "https://go.dev/doc/install", false}, // a URL-prefix rule is no domain rule
	}
	for _, c := range cases {
		t.Run(c.rule+" "+c.url, func(t *testing.T) {
			g, err := NewGate(Options{Mode: Default, Allowed: []string{c.rule}})
			if err != nil {
				t.Fatal(err)
			}
			d := g.Decide(context.Background(), fetchReq(c.url))
			if d.Allow != c.allow {
				t.Fatalf("allow = %v, want %v (%s)", d.Allow, c.allow, d.Reason)
			}
		})
	}
}

func TestWebFetchIsDeniedHeadlessNamingTheFlagsThatAllowIt(t *testing.T) {
	for _, mode := range []Mode{Default, AcceptEdits} {
		g, _ := NewGate(Options{Mode: mode})
		d := g.Decide(context.Background(), fetchReq("https://go.dev/doc/"))
		if d.Allow {
			t.Fatalf("%s: web_fetch allowed headless without a rule", mode)
		}
		for _, w := range []string{`web_fetch "https://go.dev/doc/"`, "--allowed-tools 'web_fetch(domain:go.dev)'", "'web_fetch'"} {
			if !strings.Contains(d.Reason, w) {
				t.Errorf("%s: reason %q does not contain %q", mode, d.Reason, w)
			}
		}
	}
	plan, _ := NewGate(Options{Mode: Plan})
	if d := plan.Decide(context.Background(), fetchReq("https://go.dev/")); d.Allow || !strings.Contains(d.Reason, "plan mode") {
		t.Fatalf("plan mode: %+v, want a plan-mode denial", d)
	}
	allowed, _ := NewGate(Options{Mode: Plan, Allowed: []string{"web_fetch(domain:go.dev)"}})
	if d := allowed.Decide(context.Background(), fetchReq("https://go.dev/")); !d.Allow {
		t.Fatalf("an explicit rule allows web_fetch even in plan mode: %s", d.Reason)
	}
}

func TestWebFetchAllowedForTheSessionRemembersTheDomain(t *testing.T) {
	a := &answerer{ans: AllowSession}
	g, _ := NewGate(Options{Mode: Default, Asker: a})
	ctx := context.Background()
	if rules := g.SessionRules(fetchReq("https://go.dev/doc/")); len(rules) != 1 || rules[0] != "web_fetch(domain:go.dev)" {
		t.Fatalf("SessionRules = %v, want [web_fetch(domain:go.dev)]", rules)
	}
	if d := g.Decide(ctx, fetchReq("https://go.dev/doc/")); !d.Allow {
		t.Fatal(d.Reason)
	}
	if d := g.Decide(ctx, fetchReq("https://go.dev/blog/")); !d.Allow || a.calls != 1 {
		t.Fatalf("same domain asked again (calls %d): %+v", a.calls, d)
	}
	a.ans = Deny
	if d := g.Decide(ctx, fetchReq("https://example.com/")); d.Allow || a.calls != 2 {
		t.Fatalf("another domain must be asked for (calls %d): %+v", a.calls, d)
	}
}
