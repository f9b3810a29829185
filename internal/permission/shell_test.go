package permission

import (
	"context"
	"testing"
)

// A deny rule for rm is not bypassed by quoting, wrappers or nesting, and
// does not fire on commands that merely mention rm.
func TestDenyRuleForRmSeesThroughDisguises(t *testing.T) {
	g, err := NewGate(Options{Mode: BypassPermissions, Disallowed: []string{"bash(rm:*)"}})
	if err != nil {
		t.Fatal(err)
	}
	denied := []string{
		`r""m -f f`,
		`\rm -f f`,
		`'/bin/rm' f`,
		"echo a\nrm f",
		"! rm f",
		"time rm f",
		"exec rm f",
		"nice -n 5 rm f",
		"nohup bash -c 'rm -rf x' &",
		"xargs -I{} sh -c 'rm {}'",
		"builtin eval 'rm f'",
		"find . -exec sudo rm {} +",
		"su -c 'rm f' root",
		"bash -o pipefail -c 'rm f'",
		"bash -lc 'rm f'",
		"x=$(rm f)",
		"[[ -n $(rm f) ]]",
		"cat <<EOF\n$(rm f)\nEOF",
		"echo hi > >(rm f)",
		"case x in x) rm f;; esac",
		"while true; do rm f; done",
		"coproc rm f",
		"sh rm f",
		"X=1 rm f",
		"A= /bin/rm f",
		"env X=1 rm f",
		"bash -x rm f",
		"source rm",
		"echo\rrm f",
	}
	for _, cmd := range denied {
		if d := g.Decide(context.Background(), bashReq(cmd)); d.Allow {
			t.Errorf("%q was allowed past bash(rm:*)", cmd)
		}
	}
	allowed := []string{"echo rm", "grep rm notes.txt", "command -v rm", "rmdir empty", "ls | wc -l"}
	for _, cmd := range allowed {
		if d := g.Decide(context.Background(), bashReq(cmd)); !d.Allow {
			t.Errorf("%q was denied: %s", cmd, d.Reason)
		}
	}
}

// A deny rule naming a subcommand holds when options come before it.
func TestDenyRuleOnASubcommandSeesPastLeadingOptions(t *testing.T) {
	g, err := NewGate(Options{Mode: BypassPermissions, Disallowed: []string{"bash(git push:*)", "bash(npm publish:*)"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"git --no-pager push", "git -C . push origin", "git -c x=y push", "/usr/bin/git --no-pager push", "npm --silent publish"} {
		if d := g.Decide(context.Background(), bashReq(cmd)); d.Allow {
			t.Errorf("%q was allowed past the deny rules", cmd)
		}
	}
	for _, cmd := range []string{"git commit -m push", "git status", "npm --silent test"} {
		if d := g.Decide(context.Background(), bashReq(cmd)); !d.Allow {
			t.Errorf("%q was denied: %s", cmd, d.Reason)
		}
	}
}

func TestSplitCommandsListsEachSimpleCommandWithItsWrites(t *testing.T) {
	cmds, err := splitCommands(`FOO=1 go test ./... 2>&1 | tee log.txt > /dev/null; { echo a; } >> out && echo "$(date)"`)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		text   string
		writes bool
	}{
		{"FOO=1 go test ./...", false},
		{"tee log.txt", false},
		{"echo a >> out", true},
		{`echo "$(date)"`, false},
		{"date", false},
	}
	if len(cmds) != len(want) {
		t.Fatalf("got %d commands %v, want %d", len(cmds), cmds, len(want))
	}
	for i, w := range want {
		if cmds[i].Text != w.text || cmds[i].Writes != w.writes {
			t.Errorf("command %d = %q (writes %v), want %q (writes %v)", i, cmds[i].Text, cmds[i].Writes, w.text, w.writes)
		}
	}
}
