package permission

import (
	"bytes"
	"math/rand/v2"
	"path"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// The rules the fuzz property is checked under: a few prefix rules, and a
// deny rule the lines try to get past.
var (
	fuzzAllowed = []string{"bash(echo:*)", "bash(printf:*)", "bash(ls:*)"}
	fuzzDenied  = []string{"bash(rm:*)"}
)

// issueProbes are the lines of issue 20 §1 and §2 that ran commands past
// the gate, and their relatives.
var issueProbes = []string{
	`[[ 'a[$(touch x)]' -eq 0 ]]`,
	`let 'a[$(touch x)]'`,
	`(( a[$(touch x)] ))`,
	`(( 'a[$(touch x)]' ))`,
	`echo $(( 'a[$(touch x)]' ))`,
	`x='a[$(touch x)]'; echo $((x))`,
	`x='a[$(touch x)]'; [[ $x -eq 1 ]]`,
	`x='a[$(touch x)]'; echo ${a[x]}`,
	`echo ${a['$(touch x)']}`,
	`echo ${a["$(touch x)"]}`,
	`${x:='$(touch x)'} ${x@P}`,
	`echo ${x:='$(touch x)'} ${x@P}`,
	`x='$(touch x)'; echo ${x@P}`,
	`x='a[$(touch x)]'; echo ${!x}`,
	`x='a[$(touch x)]'; echo ${y:x}`,
	`x='a[$(touch x)]'; echo ${y:0:x}`,
	`printf -v 'a[$(touch x)]' x`,
	`printf -va[$(touch x)] x`,
	`read 'a[$(touch x)]' <<< x`,
	`declare 'a[$(touch x)]=1'`,
	`declare -i n; n='a[$(touch x)]'`,
	`test -v 'a[$(touch x)]'`,
	`[ -v 'a[$(touch x)]' ]`,
	`[[ -v 'a[$(touch x)]' ]]`,
	`x=-v; y='a[$(touch x)]'; test "$x" "$y"`,
	`a['$(touch x)']=1`,
	`a=([$(touch x)]=1)`,
	`for ((i='a[$(touch x)]'; 0;)); do :; done`,
	`builtin eval 'touch x'`,
	`command eval "$(echo touch x)"`,
	`echo rm f | bash`,
	`echo rm f | sh`,
	`bash <<< 'rm f'`,
	"bash <<EOF\nrm f\nEOF",
	`source <(echo rm f)`,
	`. <(echo rm f)`,
	`. /dev/stdin <<< 'rm f'`,
	`source /dev/stdin`,
	"shopt -s expand_aliases; alias x=rm\nx f",
	`shopt -s expand_aliases; alias x=rm; x f`,
	`echo f | xargs -I% sh -c '% f'`,
	`echo rm | xargs -I% sh -c '% f'`,
	`bash -s`,
	`bash`,
	`sh -`,
	`echo rm f | sh /dev/stdin`,
	`PS4='$(rm f)'; set -x; echo`,
	`trap 'rm f' EXIT`,
	`echo rm f | python3`,
	`awk 'BEGIN{system("rm f")}'`,
	`sed '1e rm f' /dev/null`,
	`find . -maxdepth 0 -exec rm f ';'`,
	`env rm f`,
	`timeout 5 rm f`,
	`git -c alias.x='!rm f' x`,
	`test -f x > out`,
	`bash -c '' > out`,
	`>out`,
	`case x in esac > out`,
	"echo\rrm f",
	`sh rm f`,
	`test *`,
	`[ * ]`,
	`read * <<< 1`,
	`sh /***/**din`,
}

// everydayLines must stay allowed by matching rules.
var everydayLines = []string{
	`echo hello`, `echo "$HOME"`, `printf '%s\n' a b`, `ls -la`, `ls | grep x`, `echo $((1+2))`,
	`[[ -f x ]] && echo y`, `test -f x && echo y`, `[ -d . ] && ls`, `for f in *.go; do echo "$f"; done`,
	`echo ${HOME:-/tmp} ${#HOME} ${HOME%/*}`, `echo a; echo b | ls`, `if [[ $# -eq 0 ]]; then echo none; fi`,
}

// fuzzSeeds are the probes, the everyday lines, the programs table's
// examples, and lines generated from them through the parser's printer:
// each probe placed inside substitutions, pipes and bash -c, and the
// probes' words swapped into each other's places.
func fuzzSeeds() []string {
	base := append(append(append([]string{}, issueProbes...), everydayLines...), programExampleLines()...)
	out := append([]string{}, base...)
	for _, p := range issueProbes {
		for _, wrap := range []string{"echo $(%s)", "ls | { %s; }", "echo ok && %s", "if true; then %s; fi", "( %s )", "echo <(%s)"} {
			if s, ok := reprint(strings.Replace(wrap, "%s", p, 1)); ok {
				out = append(out, s)
			}
		}
		if s, ok := reprint("bash -c " + quote(p)); ok {
			out = append(out, s)
		}
	}
	return append(out, swapWords(base, 200)...)
}

// reprint parses a line and prints it back with the parser's printer.
func reprint(line string) (string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return "", false
	}
	var b bytes.Buffer
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// swapWords makes n lines by putting a word of one line in the place of a
// word of another, in the parsed trees, and printing the result.
func swapWords(lines []string, n int) []string {
	rng := rand.New(rand.NewPCG(20, 1))
	var files []*syntax.File
	var words []*syntax.Word
	for _, l := range lines {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(l), "")
		if err != nil {
			continue
		}
		files = append(files, f)
		syntax.Walk(f, func(n syntax.Node) bool {
			if w, ok := n.(*syntax.Word); ok {
				words = append(words, w)
			}
			return true
		})
	}
	var out []string
	for len(out) < n && len(files) > 0 {
		f := files[rng.IntN(len(files))]
		var slots []*syntax.Word
		syntax.Walk(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok {
				slots = append(slots, c.Args...)
			}
			return true
		})
		if len(slots) == 0 {
			continue
		}
		slot := slots[rng.IntN(len(slots))]
		saved := *slot
		*slot = *words[rng.IntN(len(words))]
		var b bytes.Buffer
		if syntax.NewPrinter().Print(&b, f) == nil {
			out = append(out, strings.TrimSuffix(b.String(), "\n"))
		}
		*slot = saved
	}
	return out
}

// FuzzTheGateAllowsOnlyCommandsItsRulesAllow checks the gate against
// bash itself (see oracle): when the gate allows a line, every program
// bash runs from it is allowed by the rules and none is denied, and the
// line writes no file; with all of bash allowed (bypassPermissions) and
// bash(rm:*) denied, nothing the line runs is rm. The seeds run as unit
// tests in every go test; go test -fuzz explores further.
func FuzzTheGateAllowsOnlyCommandsItsRulesAllow(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	o := newOracle(f)
	strict, err := NewGate(Options{Mode: Default, Allowed: fuzzAllowed, Disallowed: fuzzDenied})
	if err != nil {
		f.Fatal(err)
	}
	bypass, err := NewGate(Options{Mode: BypassPermissions, Disallowed: fuzzDenied})
	if err != nil {
		f.Fatal(err)
	}
	allow := parsePatterns(f, fuzzAllowed)
	deny := parsePatterns(f, fuzzDenied)
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 512 || strings.ContainsAny(line, "\x00") {
			return
		}
		lines := []string{line}
		if p, ok := reprint(line); ok && p != line {
			lines = append(lines, p)
		}
		for _, l := range lines {
			s, sDecided := strict.Check(bashReq(l))
			b, bDecided := bypass.Check(bashReq(l))
			strictAllows, bypassAllows := sDecided && s.Allow, bDecided && b.Allow
			if !strictAllows && !bypassAllows {
				continue
			}
			ran, wrote := o.run(t, l)
			for _, words := range ran {
				text := strings.Join(words, " ")
				if matchesAny(deny, words) {
					t.Errorf("%q was allowed (default mode: %v, bypassPermissions: %v) and ran %q, which bash(rm:*) denies", l, strictAllows, bypassAllows, text)
				}
				if strictAllows && !matchesAny(allow, words) && !noRuleNeeded(words) {
					t.Errorf("%q was allowed under %v and ran %q, which no rule allows", l, fuzzAllowed, text)
				}
			}
			if strictAllows && len(wrote) > 0 {
				t.Errorf("%q was allowed under %v and wrote %v", l, fuzzAllowed, wrote)
			}
		}
	})
}

// noRuleNeeded are the programs the gate's policy lets run with no rule:
// test and [, which only test.
func noRuleNeeded(words []string) bool {
	return len(words) > 0 && (words[0] == "test" || words[0] == "[")
}

func parsePatterns(t testing.TB, ss []string) []Pattern {
	var out []Pattern
	for _, s := range ss {
		p, err := ParsePattern(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// matchesAny matches a command's words, and the same with its name's
// path stripped, against rules.
func matchesAny(rules []Pattern, words []string) bool {
	texts := []string{strings.Join(words, " ")}
	if len(words) > 0 {
		texts = append(texts, strings.Join(append([]string{path.Base(words[0])}, words[1:]...), " "))
	}
	for _, p := range rules {
		for _, s := range texts {
			if p.Match("bash", s) {
				return true
			}
		}
	}
	return false
}
