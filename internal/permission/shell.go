package permission

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// command is one simple command of a bash command line, as permission
// rules see it. A line is allowed only when every one of its commands is,
// and denied when any one matches a deny rule.
type command struct {
	// Text is the command's words, unquoted and joined by single spaces,
	// with any leading VAR=value assignments and, last, the redirections
	// that write to files. bash(prefix:*) rules match it.
	Text string
	// Words are the unquoted words (assignments and redirections left out).
	Words []string
	// Opaque is set when what runs cannot be known without running the
	// shell: a command name from a variable, a substitution, a glob or a
	// brace expansion, or a bash -c / eval whose argument is not literal.
	// No prefix rule can cover it.
	Opaque bool
	// Writes is set when the command's output goes to a file (> out,
	// >> log, &> f), directly or through an enclosing { …; } > f. Prefix
	// rules do not cover such a command; only an exact rule does.
	Writes bool
	// DenyAlso are further texts deny rules are matched against: the same
	// command with its path stripped (/bin/rm → rm) and the commands a
	// wrapper runs (sudo, env, xargs, timeout, find -exec …).
	DenyAlso []string
	// Transparent is set for bash -c '…', sh -c '…' and eval '…' with a
	// literal line: its commands, listed after it, stand for it; it needs
	// no allowance of its own, though deny rules still see it.
	Transparent bool
	// Exact is set for the forms of a program that run other programs or
	// write files through their arguments (sed -i, git -c, find -delete,
	// python -c …; see programs): a prefix rule does not cover them, only
	// an exact rule or all of bash.
	Exact bool
	// Hidden is set when the command runs commands no deny rule can see
	// (awk's system(), a code-bearing variable such as PS4 or PATH): with
	// a deny rule in force the line is asked, whatever allows it.
	Hidden bool
	// Why says what makes the command opaque, exact or hidden.
	Why string
}

// maxShellDepth bounds how deep bash -c, sh -c and eval arguments and
// the commands of wrappers (sudo, timeout, find -exec …) are read; deeper
// nesting is treated as opaque.
const maxShellDepth = 6

// splitCommands parses a bash command line into its simple commands: those
// joined by ;, &&, || and pipes, and those in subshells, blocks, loops,
// function bodies, $(…), backquotes, process substitutions and the
// literal arguments of bash -c, sh -c and eval. A line that does not parse
// is an error: nothing can be said about it.
//
// The analysis is an allow-list: every node, word part and expansion of
// the line must be one walker.visit fully understands. Anything else
// (arithmetic on names, subscripts, let, coproc, ${x@P}, ${!x}, …) becomes
// an opaque pseudo-command, so the whole line is asked rather than run.
func splitCommands(line string) ([]command, error) {
	return splitDepth(line, 0)
}

func splitDepth(line string, depth int) ([]command, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, err
	}
	w := &walker{src: line, depth: depth}
	if strings.ContainsRune(line, '\r') {
		// The parser takes a carriage return for a blank; bash takes it
		// for a letter of the word, so they disagree on what runs.
		w.out = append(w.out, command{Text: line, Opaque: true, Why: "a carriage return, which bash reads as part of a word and the analysis as a blank"})
	}
	syntax.Walk(f, w.visit)
	return w.out, nil
}

// fileRedirects returns the redirections that write to a file, as source
// text. Duplicating a descriptor (2>&1, >&2) and writing to /dev/null,
// /dev/stdout or /dev/stderr are not writes.
func fileRedirects(src string, rs []*syntax.Redirect) []string {
	var out []string
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		case syntax.DplOut:
			if s, ok := literal(r.Word); ok && (s == "-" || isDigits(s)) {
				continue
			}
		default:
			continue // input, here-documents, here-strings, <&
		}
		if s, ok := literal(r.Word); ok && (s == "/dev/null" || s == "/dev/stdout" || s == "/dev/stderr") {
			continue
		}
		out = append(out, source(src, r))
	}
	return out
}

// callCommands analyses one simple command: the command itself, the
// commands inside a literal bash -c / eval argument and those a wrapper
// (timeout, xargs, find -exec …) runs.
func callCommands(src string, c *syntax.CallExpr, writes []string, depth int) []command {
	var prefix []string
	code := ""
	for _, a := range c.Assigns {
		prefix = append(prefix, assignText(src, a))
		if a.Name != nil && codeVar(a.Name.Value) && code == "" {
			code = a.Name.Value
		}
	}
	cmds := wordsCommands(newCall(src, c.Args), prefix, writes, depth)
	if code != "" {
		cmds[0].Exact, cmds[0].Hidden = true, true
		cmds[0].Why = code + " decides which programs run or runs code of its own"
		cmds[0].Transparent = false
	}
	return cmds
}

// call is the words of one simple command as the analysis reads them.
type call struct {
	words []string // unquoted; the source text where not literal
	lits  []bool   // the word is literal
	plain []bool   // literal, with no unquoted glob, brace or tilde
	// fixed: literal, and bash expands it to itself alone (no glob,
	// brace expansion or leading tilde), so it cannot turn into options.
	fixed []bool
}

func newCall(src string, args []*syntax.Word) call {
	n := len(args)
	c := call{words: make([]string, n), lits: make([]bool, n), plain: make([]bool, n), fixed: make([]bool, n)}
	for i, w := range args {
		s, ok := literal(w)
		if !ok {
			s = source(src, w)
		}
		c.words[i], c.lits[i], c.plain[i], c.fixed[i] = s, ok, ok && plainName(w), ok && fixedArg(w)
	}
	return c
}

func (c call) slice(from, to int) call {
	return call{words: c.words[from:to], lits: c.lits[from:to], plain: c.plain[from:to], fixed: c.fixed[from:to]}
}

// wordsCommands analyses the words of one command, with its leading
// assignments (prefix) and the file redirections in force (writes).
func wordsCommands(c call, prefix, writes []string, depth int) []command {
	cmd := command{Writes: len(writes) > 0, Words: c.words}
	cmd.Text = strings.Join(slices.Concat(prefix, c.words, writes), " ")
	if len(c.words) == 0 {
		return []command{cmd} // only assignments: X=1
	}
	if depth > maxShellDepth {
		cmd.Opaque, cmd.Why = true, "wrappers and shells nested too deeply to read"
		return []command{cmd}
	}
	if !c.plain[0] {
		cmd.Opaque, cmd.Why = true, "its name is known only when it runs"
		return []command{cmd}
	}
	var hidden string
	// Words a glob or brace may expand (sh /***/**din is sh /dev/stdin)
	// count as unknown to the shell and wrapper readings below.
	cmd.DenyAlso, hidden = denyForms(c.words, c.fixed, depth, 0)
	if len(prefix) > 0 {
		// X=1 rm f runs rm: deny rules see it without its assignments.
		cmd.DenyAlso = append(cmd.DenyAlso, strings.Join(c.words, " "))
	}
	if hidden != "" {
		cmd.Hidden, cmd.Why = true, hidden
	}
	sh := shellString(c.words, c.fixed)
	if sh.found {
		inner, ok := sh.commands(depth)
		if !ok {
			cmd.Opaque = true
			cmd.Why = cmp.Or(sh.why, "the command line it runs is known only when it runs")
			return []command{cmd}
		}
		for i := range inner {
			inner[i].Writes = inner[i].Writes || cmd.Writes
			if cmd.Writes {
				inner[i].Text = strings.Join(append([]string{inner[i].Text}, writes...), " ")
			}
		}
		// bash -c 'go test' runs just what go test runs: its commands stand
		// for it, and the line is allowed when they are.
		cmd.Transparent = sh.transparent && len(prefix) == 0 && !cmd.Writes
		return append([]command{cmd}, inner...)
	}
	v := classify(c)
	if v.opaque {
		cmd.Opaque, cmd.Why = true, v.why
		return []command{cmd}
	}
	if v.exact || v.hidden {
		cmd.Exact, cmd.Hidden = cmd.Exact || v.exact, cmd.Hidden || v.hidden
		cmd.Why = cmp.Or(v.why, cmd.Why)
	}
	out := []command{cmd}
	for _, s := range v.inner {
		inner := wordsCommands(c.slice(s.from, s.to), s.prefix, writes, depth+1)
		for _, ic := range inner {
			if ic.Opaque && !v.transparent {
				// What a sudo or find runs cannot be known: neither can
				// what it does.
				out[0].Opaque, out[0].Why = true, ic.Why
			}
		}
		out = append(out, inner...)
	}
	// Redirected into a file, it writes that file itself (test -f x > out
	// runs nothing, but makes out): then it needs a rule of its own.
	out[0].Transparent = v.transparent && len(prefix) == 0 && !out[0].Exact && !out[0].Opaque && !out[0].Writes
	return out
}

// maxWrapperStarts bounds how many places in one wrapper command
// (sudo, xargs …) are tried as the start of the wrapped command.
const maxWrapperStarts = 64

// denyForms returns the further texts deny rules are matched against for
// the command words: the name without its path (/bin/rm → rm), the
// commands a wrapper may run (sudo, env, xargs, timeout, find -exec …)
// and the commands of their literal shell strings. level counts wrappers
// already looked through: a wrapper's every non-option word is a start
// already, so only find -exec needs a second level. hidden, when not
// empty, says why a wrapped command may run what no deny rule can see (a
// shell reading its script from standard input, awk's system() …).
func denyForms(words []string, lits []bool, depth, level int) (out []string, hidden string) {
	name := path.Base(words[0])
	if name != words[0] {
		out = append(out, strings.Join(append([]string{name}, words[1:]...), " "))
	}
	if i := subcommandAt(name, words); i > 1 {
		// git --no-pager push is git push to a bash(git push:*) deny rule.
		out = append(out, strings.Join(append([]string{name}, words[i:]...), " "))
	}
	if level > 0 {
		if sh := shellString(words, lits); sh.found {
			if cmds, ok := sh.commands(depth); ok {
				for _, c := range cmds {
					out = append(out, c.Text)
					out = append(out, c.DenyAlso...)
					if c.Opaque || c.Hidden {
						hidden = cmp.Or(hidden, c.Why)
					}
				}
			} else {
				hidden = cmp.Or(hidden, sh.why, "it runs a command line known only when it runs")
			}
		} else if v := classify(call{words: words, lits: lits, plain: lits, fixed: lits}); v.opaque || v.hidden {
			hidden = cmp.Or(hidden, v.why)
		}
	}
	if level > 1 {
		return out, hidden
	}
	starts := wrappedStarts(name, words)
	if len(starts) > maxWrapperStarts {
		starts = starts[:maxWrapperStarts]
	}
	for _, s := range starts {
		if s >= len(words) || !lits[s] {
			continue
		}
		out = append(out, strings.Join(words[s:], " "))
		next := level + 1
		if name != "find" {
			next = 2 // later starts are in this list already
		}
		more, h := denyForms(words[s:], lits[s:], depth, next)
		out = append(out, more...)
		hidden = cmp.Or(hidden, h)
	}
	return out, hidden
}

// subcommandAt returns where the first word after a program's leading
// options is (its subcommand: git -C dir push → push), or 0.
func subcommandAt(name string, words []string) int {
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case name == "git" && (w == "-C" || w == "-c" || w == "--git-dir" || w == "--work-tree" || w == "--namespace" ||
			w == "--config-env" || w == "--super-prefix"):
			i++
		case strings.HasPrefix(w, "-"):
		default:
			return i
		}
	}
	return 0
}

// shellCommand is the command line a shell, su or eval is told to run.
type shellCommand struct {
	script string
	found  bool // the command runs a command line given as an argument
	ok     bool // and it is literal
	// transparent: running it is just running the line (bash -c '…',
	// sh -c '…', eval …), unlike su -c, which changes user.
	transparent bool
	// why says where the line comes from when it is not literal.
	why string
}

// commands parses the command line; ok is false when it is not literal,
// too deeply nested or does not parse.
func (s shellCommand) commands(depth int) ([]command, bool) {
	if !s.ok || depth >= maxShellDepth {
		return nil, false
	}
	cmds, err := splitDepth(s.script, depth+1)
	if err != nil {
		return nil, false
	}
	return cmds, true
}

// shells run their -c argument as a command line.
func shells(k string) bool {
	switch k {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh",
		"rbash":
		return true
	}
	return false
}

// bashSyntax are the shells whose -c scripts parse as bash scripts mean
// what they say (zsh's glob qualifiers and fish's (…) run commands bash
// would read as plain words).
func bashSyntax(k string) bool {
	switch k {
	case "bash", "sh", "dash", "ash", "rbash", "posh", "yash":
		return true
	}
	return false
}

const stdinScript = "it reads the commands it runs from standard input (a pipe, a here-string or a here-document), which no rule can see"

// stdinFile reports whether a script file name is standard input or a
// descriptor (a pipe, a process substitution).
func stdinFile(s string) bool {
	return s == "-" || strings.HasPrefix(s, "/dev/stdin") || strings.HasPrefix(s, "/dev/fd/") ||
		strings.HasPrefix(s, "/proc/") || strings.HasPrefix(s, "/dev/tcp/") || strings.HasPrefix(s, "/dev/udp/")
}

// shellString finds the command line a shell, su, eval or source would
// run. A shell reading its script from standard input, a descriptor or
// a variable is found but not ok.
func shellString(words []string, lits []bool) shellCommand {
	name := path.Base(words[0])
	switch {
	case name == "eval":
		for _, l := range lits[1:] {
			if !l {
				return shellCommand{found: true, why: "eval runs a command line known only when it runs"}
			}
		}
		return shellCommand{script: strings.Join(words[1:], " "), found: true, ok: true, transparent: true}
	case name == "source" || name == ".":
		if len(words) < 2 || !lits[1] || stdinFile(words[1]) {
			return shellCommand{found: true, why: "it runs a script read from standard input, a descriptor or a variable"}
		}
	case name == "su":
		for i := 1; i+1 < len(words); i++ {
			if !lits[i] {
				return shellCommand{found: true}
			}
			if words[i] == "-c" || words[i] == "--command" {
				return shellCommand{script: words[i+1], found: true, ok: lits[i+1]}
			}
		}
	case shells(name):
		for i := 1; i < len(words); i++ {
			w := words[i]
			if !lits[i] {
				return shellCommand{found: true}
			}
			switch {
			case w == "-o" || w == "+o" || w == "-O" || w == "+O" || w == "--rcfile" || w == "--init-file":
				i++ // the option's value
			case w == "--version" || w == "--help":
				return shellCommand{}
			case w == "-s" || w == "-" || w == "--" && i+1 == len(words):
				return shellCommand{found: true, why: stdinScript}
			case w == "--":
				if stdinFile(words[i+1]) {
					return shellCommand{found: true, why: stdinScript}
				}
				return shellCommand{} // a script file: the command itself is what runs
			case !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+"):
				if stdinFile(w) {
					return shellCommand{found: true, why: stdinScript}
				}
				return shellCommand{} // a script file: the command itself is what runs
			case !strings.HasPrefix(w, "--") && strings.Contains(w, "s"):
				return shellCommand{found: true, why: stdinScript}
			case !strings.HasPrefix(w, "--") && strings.Contains(w, "c"):
				if i+1 >= len(words) {
					return shellCommand{}
				}
				if !bashSyntax(name) {
					return shellCommand{found: true, why: name + " -c takes a script in a syntax other than bash's, which the analysis does not read"}
				}
				return shellCommand{script: words[i+1], found: true, ok: lits[i+1], transparent: i == 1 && w == "-c"}
			}
		}
		// No script and no -c: the shell reads its commands from stdin.
		return shellCommand{found: true, why: stdinScript}
	}
	return shellCommand{}
}

// wrappers run the command given in their arguments.
func wrappers(k string) bool {
	switch k {
	case "sudo", "doas", "env", "command", "builtin", "exec", "nice", "nohup", "time", "timeout",
		"xargs", "stdbuf", "setsid", "ionice", "chrt", "taskset", "unbuffer", "watch", "strace",
		"ltrace", "chroot", "flock", "fakeroot", "nsenter", "unshare", "firejail", "parallel",
		"caffeinate", "systemd-run", "run-parts", "busybox", "catchsegv", "ssh":
		return true
	}
	return false
}

// wrappedStarts returns where a wrapped command may start: every word
// after the wrapper that is not an option or an assignment (the options'
// own values included, since which options take one differs by tool), or
// after find's -exec.
func wrappedStarts(name string, words []string) []int {
	var out []int
	switch {
	case name == "find":
		for i := 1; i < len(words); i++ {
			switch words[i] {
			case "-exec", "-execdir", "-ok", "-okdir":
				out = append(out, i+1)
			}
		}
	case name == "command" && len(words) > 1 && (words[1] == "-v" || words[1] == "-V"):
		// command -v only names a command
	case shells(name) || name == "source" || name == ".":
		// sh NAME runs the script NAME, found on PATH when it has no
		// slash: what a deny rule on NAME means to stop.
		for i := 1; i < len(words); i++ {
			switch w := words[i]; {
			case w == "-o" || w == "+o" || w == "-O" || w == "+O" || w == "--rcfile" || w == "--init-file":
				i++
			case w == "--":
			case strings.HasPrefix(w, "-") && strings.Contains(w, "c") && !strings.HasPrefix(w, "--"):
				return out // -c: the line is read as a script already
			case !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+"):
				return append(out, i)
			}
		}
	case wrappers(name):
		for i := 1; i < len(words); i++ {
			w := words[i]
			if strings.HasPrefix(w, "-") || strings.Contains(w, "=") && !strings.HasPrefix(w, "=") {
				continue
			}
			out = append(out, i)
		}
	}
	return out
}

// declCommand is export/declare/local/readonly: it needs approval like any
// other command (export PATH=… changes what later commands run). The forms
// that make bash evaluate text (declare -i, -n namerefs, a quoted
// 'a[…]=v' that declare parses again) are opaque.
func declCommand(src string, d *syntax.DeclClause, writes []string) command {
	c := command{
		Text:  strings.Join(append([]string{source(src, d)}, writes...), " "),
		Words: []string{d.Variant.Value}, Writes: len(writes) > 0,
	}
	if why := declProblem(d); why != "" {
		c.Opaque, c.Why = true, why
		return c
	}
	for _, a := range d.Args {
		if a.Name != nil && codeVar(a.Name.Value) {
			c.Exact, c.Hidden, c.Why = true, true, a.Name.Value+" decides which programs run or runs code of its own"
		}
	}
	return c
}

func (c command) String() string { return c.Text }

func assignText(src string, a *syntax.Assign) string {
	if a.Name != nil && a.Value != nil && a.Index == nil && a.Array == nil {
		if v, ok := literal(a.Value); ok {
			op := "="
			if a.Append {
				op = "+="
			}
			return a.Name.Value + op + v
		}
	}
	return source(src, a)
}

// literal returns the value of a word that expands to itself: plain
// text, quotes and escapes only. Parameter expansions, substitutions and
// the like are not literal.
func literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// plainName reports whether a literal command name means itself: no
// unquoted glob, brace or tilde that bash would expand into another name.
func plainName(w *syntax.Word) bool {
	if s, ok := bareLit(w); ok && s == "[" {
		return true // test's other name: a lone [ is no glob
	}
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "*?[{~") {
			return false
		}
	}
	return true
}

// braceExp matches an unquoted brace expansion: {a,b} or {1..3}.
var braceExp = lazy.Regexp{Expr: `\{[^{}]*(,|\.\.)[^{}]*\}`}

// fixedArg reports whether a literal argument expands to itself alone:
// no unquoted glob character, brace expansion or leading tilde.
func fixedArg(w *syntax.Word) bool {
	for i, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			continue
		}
		if strings.ContainsAny(l.Value, "*?[") || braceExp.Get().MatchString(l.Value) || i == 0 && strings.HasPrefix(l.Value, "~") {
			return false
		}
	}
	return true
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// source is the text of n as written.
func source(src string, n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(src) || start > end {
		return fmt.Sprint(n)
	}
	return src[start:end]
}
