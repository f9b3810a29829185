package permission

import (
	"context"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/tools"
)

func bashReq(cmd string) Request { return Request{Tool: "bash", Kind: tools.Exec, Subject: cmd} }

// Every simple command of a line must be allowed for the line to be
// allowed; one matching a deny rule denies the whole line.
func TestBashRulesSeeEverySimpleCommandOfTheLine(t *testing.T) {
	allowed := []string{"bash(go test:*)", "bash(echo:*)", "bash(cat:*)", "bash(true)", "bash(ls:*)"}
	disallowed := []string{"bash(rm:*)"}
	cases := []struct {
		name    string
		cmd     string
		allow   bool
		reason  string // substring of the reason when not allowed
		denyAll bool   // denied by a deny rule (rather than needing approval)
	}{
		{"allowed prefix alone", "go test ./x", true, "", false},
		{"quoted words are unquoted before matching", `'go' "test" ./x`, true, "", false},
		{"two allowed commands joined", "go test ./x && echo ok", true, "", false},
		{"pipe of allowed commands", "cat a | cat", true, "", false},
		{"unallowed command after ;", "go test ./x; touch f", false, "touch f", false},
		{"unallowed command after &&", "echo hi && touch f", false, "touch f", false},
		{"unallowed command after ||", "echo hi || touch f", false, "touch f", false},
		{"unallowed command in a pipe", "echo hi | sh", false, "sh", false},
		{"command substitution", "echo $(touch f)", false, "touch f", false},
		{"backquotes", "echo `touch f`", false, "touch f", false},
		{"subshell", "(touch f)", false, "touch f", false},
		{"block", "{ touch f; }", false, "touch f", false},
		{"process substitution", "cat <(touch f)", false, "touch f", false},
		{"function body", "f() { touch x; }; echo ok", false, "touch x", false},
		{"if condition", "if touch f; then echo y; fi", false, "touch f", false},
		{"loop body", "for i in 1 2; do touch $i; done", false, "touch $i", false},
		{"here-string command", "cat <<< $(touch f)", false, "touch f", false},
		{"export is a command of its own", "export PATH=/tmp && go test ./x", false, "export PATH=/tmp", false},
		{"assignment prefix is part of the command", "LD_PRELOAD=x.so go test ./x", false, "LD_PRELOAD=x.so go test", false},
		{"deny rule after &&", "true && rm -f f", false, "rm -f f", true},
		{"deny rule after ;", "echo hi; rm -f f", false, "rm -f f", true},
		{"deny rule in a substitution", "echo $(rm -f f)", false, "rm -f f", true},
		{"deny rule by absolute path", "/bin/rm -f f", false, "rm", true},
		{"deny rule through env", "env X=1 rm -f f", false, "rm", true},
		{"deny rule through command", "command rm -f f", false, "rm", true},
		{"deny rule through sudo with options", "sudo -u root rm -f f", false, "rm", true},
		{"deny rule through xargs", "echo f | xargs rm", false, "rm", true},
		{"deny rule through timeout", "timeout 5 rm -f f", false, "rm", true},
		{"deny rule through find -exec", "find . -exec rm {} ;", false, "rm", true},
		{"deny rule inside bash -c", "bash -c 'echo hi; rm -f f'", false, "rm -f f", true},
		{"deny rule inside sh -c behind sudo", "sudo sh -c 'rm -f f'", false, "rm", true},
		{"deny rule inside eval", "eval 'rm -f f'", false, "rm -f f", true},
		{"deny rule inside nested bash -c", `bash -c "sh -c 'rm -f f'"`, false, "rm -f f", true},
		{"bash -c of allowed commands is allowed", "bash -c 'go test ./x && echo ok'", true, "", false},
		{"bash -c of an unallowed command asks", "bash -c 'touch f'", false, "touch f", false},
		{"non-literal bash -c asks", `bash -c "$CMD"`, false, "known only when it runs", false},
		{"non-literal eval asks", `eval "$CMD"`, false, "known only when it runs", false},
		{"variable command name asks", "$X foo", false, "known only when it runs", false},
		{"glob command name asks", "/bin/r? -f f", false, "known only when it runs", false},
		{"brace-expanded command name asks", "{rm,-f,f}", false, "known only when it runs", false},
		{"unparseable line asks", "echo 'unterminated", false, "cannot be parsed", false},
		{"redirection to a file is a write", "cat /etc/hostname > out", false, "> out", false},
		{"appending redirection is a write", "echo hi >> log", false, ">> log", false},
		{"redirection of a block writes for all inside", "{ echo a; echo b; } > out", false, "> out", false},
		{"a redirection alone writes", ">out", false, ">out", false},
		{"test redirected into a file writes", "test -f x > out", false, "> out", false},
		{"an empty bash -c redirected into a file writes", "bash -c '' > out", false, "> out", false},
		{"a wrapper of nothing redirected into a file writes", "nohup > out", false, "> out", false},
		{"a redirection of a statement running nothing writes", "case x in esac > out", false, "> out", false},
		{"redirection to /dev/null is not a write", "go test ./x > /dev/null 2>&1", true, "", false},
		{"descriptor duplication is not a write", "go test ./x 2>&1 | cat", true, "", false},
		{"input redirection is not a write", "cat < in", true, "", false},
		{"prefix match needs a word boundary", "go testify", false, "go testify", false},
		{"comment only does nothing", "# nothing", true, "", false},
	}
	g, err := NewGate(Options{Mode: Default, Allowed: allowed, Disallowed: disallowed})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := g.Decide(context.Background(), bashReq(c.cmd))
			if d.Allow != c.allow {
				t.Fatalf("%q: allow = %v, want %v (%s)", c.cmd, d.Allow, c.allow, d.Reason)
			}
			if c.allow {
				return
			}
			if !strings.Contains(d.Reason, c.reason) {
				t.Errorf("%q: reason %q does not mention %q", c.cmd, d.Reason, c.reason)
			}
			if got := strings.Contains(d.Reason, "--disallowed-tools"); got != c.denyAll {
				t.Errorf("%q: denied by a deny rule = %v, want %v (%s)", c.cmd, got, c.denyAll, d.Reason)
			}
		})
	}
}

// A write redirection is only covered by an exact rule or by all of bash.
func TestBashWriteRedirectionNeedsAnExactRuleOrAllOfBash(t *testing.T) {
	cases := []struct {
		name    string
		allowed []string
		mode    Mode
		allow   bool
	}{
		{"prefix rule of the command", []string{"bash(echo:*)"}, Default, false},
		{"exact rule with the redirection", []string{"bash(echo hi > out)"}, Default, true},
		{"all of bash", []string{"bash"}, Default, true},
		{"bash(*)", []string{"bash(*)"}, Default, true},
		{"bypassPermissions", nil, BypassPermissions, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := NewGate(Options{Mode: c.mode, Allowed: c.allowed})
			if err != nil {
				t.Fatal(err)
			}
			if d := g.Decide(context.Background(), bashReq("echo hi > out")); d.Allow != c.allow {
				t.Fatalf("allow = %v, want %v (%s)", d.Allow, c.allow, d.Reason)
			}
		})
	}
}

// Opaque and unparseable lines may hide a denied command: with a scoped
// deny rule not even bypassPermissions or an allow of all bash runs them;
// without one, allowing all of bash covers them.
func TestBashOpaqueLinesAndDenyRules(t *testing.T) {
	cases := []struct {
		name       string
		mode       Mode
		allowed    []string
		disallowed []string
		cmd        string
		allow      bool
	}{
		{"bypass runs a variable command without deny rules", BypassPermissions, nil, nil, "$X foo", true},
		{"bypass asks for a variable command when a deny rule could match", BypassPermissions, nil, []string{"bash(rm:*)"}, "$X foo", false},
		{"all of bash runs an unparseable line without deny rules", Default, []string{"bash"}, nil, "echo 'open", true},
		{"all of bash asks for an unparseable line when a deny rule could match", Default, []string{"bash"}, []string{"bash(rm:*)"}, "echo 'open", false},
		{"deny rule wins over bypass", BypassPermissions, nil, []string{"bash(rm:*)"}, "true && rm -f f", false},
		{"plan mode denies an unallowed command", Plan, []string{"bash(echo:*)"}, nil, "echo a; touch f", false},
		{"plan mode runs a fully allowed line", Plan, []string{"bash(echo:*)"}, nil, "echo a; echo b", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := NewGate(Options{Mode: c.mode, Allowed: c.allowed, Disallowed: c.disallowed})
			if err != nil {
				t.Fatal(err)
			}
			if d := g.Decide(context.Background(), bashReq(c.cmd)); d.Allow != c.allow {
				t.Fatalf("allow = %v, want %v (%s)", d.Allow, c.allow, d.Reason)
			}
		})
	}
}

// The headless denial names a rule for every command that needs one.
func TestHeadlessBashDenialNamesARuleForEachCommand(t *testing.T) {
	g, _ := NewGate(Options{Mode: Default, Allowed: []string{"bash(echo:*)"}})
	d := g.Decide(context.Background(), bashReq("echo a && go test ./x | grep ok"))
	if d.Allow {
		t.Fatal("should need approval")
	}
	for _, want := range []string{"bash(go test:*)", "bash(grep ok:*)"} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason %q does not name %s", d.Reason, want)
		}
	}
	if strings.Contains(d.Reason, "bash(echo") {
		t.Errorf("reason names the already allowed echo: %q", d.Reason)
	}
}
