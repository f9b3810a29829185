package permission

import (
	"strings"
	"testing"
)

// unreadable are lines of issue 20 §1: bash evaluates text in them that
// the parser sees as a plain string, so a command runs where the old
// analysis saw none.
var unreadable = []string{
	`[[ 'a[$(touch x)]' -eq 0 ]]`,
	`let 'a[$(touch x)]'`,
	`(( a[$(touch x)] ))`,
	`(( 'a[$(touch x)]' ))`,
	`x='a[$(touch x)]'; [[ $x -eq 1 ]]`,
	`echo $((x))`,
	`echo ${a['$(touch x)']}`,
	`echo ${x:='$(touch x)'} ${x@P}`,
	`echo ${!x}`,
	`echo ${y:x}`,
	`printf -v 'a[$(touch x)]' x`,
	`read 'a[$(touch x)]' <<< x`,
	`declare 'a[$(touch x)]=1'`,
	`declare -i n=1`,
	`declare -n r=x`,
	`test -v 'a[$(touch x)]'`,
	`[[ -v 'a[$(touch x)]' ]]`,
	`a['$(touch x)']=1`,
	`for ((i=0; i<3; i++)); do echo $i; done`,
	`coproc echo x`,
	`select x in a b; do echo $x; done`,
	`echo $"translated"`,
	`exec {fd}>out`,
	`trap "$C" EXIT`,
	`echo() { touch x; }; echo hi`,
	`test *`,
	`[ * ]`,
	`read *`,
	`printf -v * x`,
	`builtin declare *`,
}

// Every unreadable line needs approval under prefix rules, is denied in
// plan mode, and headless is denied with a message naming the flags that
// would allow it; all of bash allows it when no deny rule is in force.
func TestLinesTheAnalysisCannotReadAreAskedNotRun(t *testing.T) {
	narrow := []string{"bash(echo:*)", "bash(printf:*)", "bash(read:*)", "bash(declare:*)", "bash(test:*)", "bash(let:*)", "bash(trap:*)", "bash(exec:*)"}
	for _, line := range unreadable {
		t.Run(line, func(t *testing.T) {
			for _, mode := range []Mode{Default, AcceptEdits} {
				for _, rules := range [][]string{nil, narrow} {
					g := mustGate(t, mode, rules, nil)
					d, decided := g.Check(bashReq(line))
					if decided {
						t.Fatalf("%s mode, rules %v: decided %+v without asking", mode, rules, d)
					}
					reason := g.headlessDenial(bashReq(line))
					if !strings.Contains(reason, "--allowed-tools bash or --permission-mode bypassPermissions") {
						t.Errorf("%s mode: the headless denial does not name the flags that allow it: %s", mode, reason)
					}
				}
			}
			plan := mustGate(t, Plan, narrow, nil)
			if d, decided := plan.Check(bashReq(line)); !decided || d.Allow || !strings.Contains(d.Reason, "plan mode") {
				t.Errorf("plan mode: %+v (decided %v), want denied", d, decided)
			}
			if d, decided := mustGate(t, Default, []string{"bash"}, nil).Check(bashReq(line)); !decided || !d.Allow {
				t.Errorf("all of bash allowed: %+v, want allowed", d)
			}
			if d, decided := mustGate(t, BypassPermissions, nil, []string{"bash(rm:*)"}).Check(bashReq(line)); decided && d.Allow {
				t.Errorf("bypassPermissions with bash(rm:*) denied: allowed what may hide rm")
			}
		})
	}
}

// stdinScripts are lines of issue 20 §2: a shell, source or eval whose
// script comes from standard input, a here-string, a here-document, a
// process substitution, a variable or an alias.
var stdinScripts = []string{
	`echo rm f | bash`,
	`echo rm f | sh -s`,
	`bash <<< 'rm f'`,
	"bash <<EOF\nrm f\nEOF",
	`source <(echo rm f)`,
	`. /dev/stdin <<< 'rm f'`,
	`bash /dev/fd/3 3<<< 'rm f'`,
	`eval "$CMD"`,
	`bash -c "$CMD"`,
	`shopt -s expand_aliases; alias x=rm; x f`,
	`echo f | xargs -I% sh -c '% f'`,
	`echo 'rm f' | python3`,
	`echo 'system("rm f")' | perl`,
	`zsh -c 'echo *(e:rm f:)'`,
	`echo rm f | sh /***/**din`,
	`. /dev/std{in,out} <<< 'rm f'`,
	`eval *`,
}

// With a deny rule in force, or only rules narrower than all of bash, a
// script no rule can see is asked; all of bash without a deny rule runs
// it.
func TestAScriptFedToAShellIsAskedWhenADenyRuleOrANarrowRuleIsInForce(t *testing.T) {
	narrow := []string{"bash(bash:*)", "bash(sh:*)", "bash(echo:*)", "bash(source:*)", "bash(.:*)", "bash(eval:*)", "bash(shopt:*)",
		"bash(alias:*)", "bash(xargs:*)", "bash(python3:*)", "bash(perl:*)", "bash(zsh:*)"}
	for _, line := range stdinScripts {
		t.Run(line, func(t *testing.T) {
			for _, g := range []*Gate{
				mustGate(t, Default, []string{"bash"}, []string{"bash(rm:*)"}),
				mustGate(t, BypassPermissions, nil, []string{"bash(rm:*)"}),
				mustGate(t, Default, narrow, nil),
				mustGate(t, AcceptEdits, narrow, nil),
			} {
				if d, decided := g.Check(bashReq(line)); decided && d.Allow {
					t.Errorf("allowed under %v denying %v in %s mode", g.allowed, g.disallowed, g.Mode())
				}
			}
			if d, decided := mustGate(t, Default, []string{"bash"}, nil).Check(bashReq(line)); !decided || !d.Allow {
				t.Errorf("all of bash and no deny rule: %+v, want allowed", d)
			}
		})
	}
}

// The lines developers run every day stay allowed by the rules that name
// their commands, in plan mode too (nothing asked).
func TestEverydayLinesStayAllowedByTheirRules(t *testing.T) {
	cases := []struct{ line, rules string }{
		{`go test ./...`, "bash(go test:*)"},
		{`git status && git diff`, "bash(git status:*) bash(git diff:*)"},
		{`ls | grep x`, "bash(ls:*) bash(grep:*)"},
		{`for f in *.go; do gofmt -l "$f"; done`, "bash(gofmt:*)"},
		{`echo "$HOME"`, "bash(echo:*)"},
		{`cat file | wc -l`, "bash(cat:*) bash(wc:*)"},
		{`VAR=1 make`, "bash(VAR=1 make:*)"},
		{`[[ -f x ]] && echo y`, "bash(echo:*)"},
		{`test -f x`, ""},
		{`[ -n "$x" ] || echo empty`, "bash(echo:*)"},
		{`echo $((1+2)) $(( (4*5) % 3 ))`, "bash(echo:*)"},
		{`(( $# > 0 )) && echo "$(( ${#HOME} + 1 ))"`, "bash(echo:*)"},
		{`if [[ $# -eq 0 && -z ${x:-} ]]; then echo none; fi`, "bash(echo:*)"},
		{`echo ${HOME%/*} ${#HOME} ${PATH//:/ } ${HOME:0:4}`, "bash(echo:*)"},
		{`arr=(a b c); echo "${arr[@]}" ${arr[1]}`, "bash(echo:*) bash(arr=(a b c))"},
		{`timeout 60 go test -race ./...`, "bash(go test:*)"},
		{`find . -name '*.go' -exec gofmt -l {} +`, "bash(find:*) bash(gofmt:*)"},
		{`git log --oneline | head -5`, "bash(git log:*) bash(head:*)"},
		{`sed -n '1,20p' main.go`, "bash(sed:*)"},
		{`export FOO=1 && go build ./...`, "bash(export FOO=1) bash(go build:*)"},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			g := mustGate(t, Plan, ParseList(c.rules), []string{"bash(rm:*)"})
			if d, decided := g.Check(bashReq(c.line)); !decided || !d.Allow {
				t.Errorf("not allowed by %s: %s", c.rules, d.Reason)
			}
		})
	}
}
