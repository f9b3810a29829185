package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// The checks below are the conditions under which walker.visit accepts a
// node kind. They reject every form in which bash evaluates text as code
// at run time, where the parser sees only a string:
//
//   - Arithmetic ($((…)), ((…)), [[ … -eq … ]], array subscripts, ${x:o:l})
//     evaluates names recursively, and a value such as 'a[$(touch x)]'
//     runs the substitution inside its subscript. Arithmetic is accepted
//     only when every operand is a literal number: no name, no $, no
//     quote, so there is nothing left to evaluate. $((1+2)) passes;
//     $((i+1)) is asked, since i's value may come from the environment.
//   - Parameter expansions that assign (${x:=v}), expand indirectly
//     (${!x}) or transform (${x@P} expands its value as a prompt, running
//     substitutions).
//   - Builtins that take a variable name and evaluate its subscript
//     (test -v, printf -v, read, declare 'a[…]=v'), handled with the
//     programs table.

const (
	arithWhy     = "arithmetic on anything but literal numbers: bash evaluates names and array subscripts in it, which may run commands"
	subscriptWhy = "an array subscript that is not a literal number: bash evaluates it as arithmetic, which may run commands"
)

// numeric matches the literal numbers of bash arithmetic: decimal, octal,
// hexadecimal and base#digits.
var numeric = lazy.Regexp{Expr: `^([0-9]+|0[xX][0-9a-fA-F]+|[0-9]{1,2}#[0-9a-zA-Z@_]+)$`}

// literalArithm reports whether an arithmetic expression holds only
// literal numbers and operators that assign nothing.
func literalArithm(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case *syntax.Word:
		return numericOperand(x)
	case *syntax.BinaryArithm:
		if x.Op >= syntax.Assgn && x.Op <= syntax.PowAssgn {
			return false
		}
		return literalArithm(x.X) && literalArithm(x.Y)
	case *syntax.UnaryArithm:
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			return false
		}
		return literalArithm(x.X)
	case *syntax.ParenArithm:
		return literalArithm(x.X)
	}
	return false
}

// bareLit returns a word made of unquoted literal text only.
func bareLit(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(l.Value)
	}
	return b.String(), true
}

// subscriptOK accepts ${a[@]}, ${a[*]} and literal-number subscripts.
func subscriptOK(x syntax.ArithmExpr) bool {
	if w, ok := x.(*syntax.Word); ok {
		if s, ok := bareLit(w); ok && (s == "@" || s == "*") {
			return true
		}
	}
	return literalArithm(x)
}

// paramProblem says what in a parameter expansion the analysis does not
// accept, or "".
func paramProblem(p *syntax.ParamExp) string {
	switch {
	case p.Excl || p.Names != 0:
		return "an indirect expansion (${!x}) takes the name to expand from a value, and evaluates its subscript"
	case p.Flags != nil || p.NestedParam != nil || p.Width || p.IsSet || len(p.Modifiers) > 0 ||
		p.Split != syntax.OptUnset || p.GlobSubst != syntax.OptUnset || p.RcExpand != syntax.OptUnset:
		return "not bash syntax"
	case p.Param == nil:
		return "a parameter expansion without a name"
	case p.Index != nil && !subscriptOK(p.Index):
		return subscriptWhy
	case p.Slice != nil && (p.Slice.Offset != nil && !literalArithm(p.Slice.Offset) ||
		p.Slice.Length != nil && !literalArithm(p.Slice.Length)):
		return arithWhy
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull, syntax.DefaultUnset, syntax.DefaultUnsetOrNull,
			syntax.ErrorUnset, syntax.ErrorUnsetOrNull, syntax.RemSmallSuffix, syntax.RemLargeSuffix,
			syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.UpperFirst, syntax.UpperAll,
			syntax.LowerFirst, syntax.LowerAll:
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			return "${x:=…} assigns a value that later expansions may evaluate"
		case syntax.OtherParamOps:
			return "a ${x@…} transformation (@P expands the value as a prompt, running its substitutions)"
		default:
			return "not bash syntax"
		}
	}
	return ""
}

// assignProblem says what in an assignment the analysis does not accept.
func assignProblem(a *syntax.Assign) string {
	if a.Index != nil && !literalArithm(a.Index) {
		return subscriptWhy
	}
	return ""
}

// redirectProblem rejects {var}>file, which assigns a descriptor to a
// variable name that may hold a subscript, and operators bash lacks.
func redirectProblem(r *syntax.Redirect) string {
	if r.N != nil && !isDigits(r.N.Value) {
		return "a {name}> redirection assigns to a variable whose subscript bash evaluates"
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.DplOut,
		syntax.RdrClob, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.RdrAll, syntax.AppAll:
		return ""
	}
	return "not bash syntax"
}

// numericOperand accepts what bash's arithmetic may evaluate safely: a
// literal number, $#, $?, $$, $! or ${#x}, whose values are numbers.
func numericOperand(w *syntax.Word) bool {
	if s, ok := bareLit(w); ok {
		return numeric.Get().MatchString(strings.TrimLeft(s, "+-"))
	}
	if len(w.Parts) != 1 {
		return false
	}
	p, ok := w.Parts[0].(*syntax.ParamExp)
	if !ok || paramProblem(p) != "" || p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Param == nil {
		return false
	}
	if p.Length {
		return true
	}
	switch p.Param.Value {
	case "#", "?", "$", "!":
		return p.Index == nil
	}
	return false
}

// binaryTestProblem: [[ x -eq y ]] evaluates both sides as arithmetic.
func binaryTestProblem(t *syntax.BinaryTest) string {
	if t.Op >= syntax.TsEql && t.Op <= syntax.TsGtr {
		x, xok := t.X.(*syntax.Word)
		y, yok := t.Y.(*syntax.Word)
		if !xok || !yok || !numericOperand(x) || !numericOperand(y) {
			return "[[ … " + t.Op.String() + " … ]] evaluates its operands as arithmetic, whose subscripts may run commands; only literal numbers are understood"
		}
	}
	return ""
}

// identifier is a plain variable name.
var identifier = lazy.Regexp{Expr: `^[A-Za-z_][A-Za-z0-9_]*$`}

// unaryTestProblem: [[ -v a[…] ]] evaluates the subscript.
func unaryTestProblem(t *syntax.UnaryTest) string {
	if t.Op == syntax.TsVarSet || t.Op == syntax.TsRefVar {
		w, ok := t.X.(*syntax.Word)
		if s, lit := literal(w); !ok || !lit || !identifier.Get().MatchString(s) {
			return "[[ " + t.Op.String() + " … ]] evaluates the subscript of the name it is given"
		}
	}
	return ""
}

// declFlags are the options of declare, local, export, readonly and
// typeset that give bash no text to evaluate (not -i: integer variables
// evaluate every value assigned as arithmetic; not -n: namerefs).
const declFlags = "rxgluaApfFt"

// declProblem says what in a declaration the analysis does not accept.
func declProblem(d *syntax.DeclClause) string {
	switch d.Variant.Value {
	case "declare", "local", "export", "readonly", "typeset":
	default:
		return "not bash syntax"
	}
	for _, a := range d.Args {
		if a.Name != nil {
			continue // checked as an assignment (visit)
		}
		s, ok := literal(a.Value)
		switch {
		case !ok:
			return d.Variant.Value + " parses a word known only when it runs as a declaration, whose subscript bash evaluates"
		case s == "--":
		case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
			if strings.Trim(s[1:], declFlags) != "" {
				return d.Variant.Value + " " + s + ": integer and nameref variables make bash evaluate the values later assigned"
			}
		case !identifier.Get().MatchString(s):
			return d.Variant.Value + " parses the quoted word " + s + " again as a declaration, whose subscript bash evaluates"
		}
	}
	return ""
}

// codeVar reports variables whose value decides which programs run or is
// run as code (PATH, LD_PRELOAD, PS4 under set -x, BASH_ENV, GIT_*
// programs, pagers and editors …): assigning one is covered only by an
// exact rule, and with a deny rule in force it is asked.
func codeVar(name string) bool {
	switch name {
	case "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "PS0", "PS1", "PS2", "PS3", "PS4",
		"PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "BASH_LOADABLES_PATH", "EXECIGNORE", "PAGER", "MANPAGER",
		"EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE", "PYTHONSTARTUP", "PYTHONPATH", "NODE_OPTIONS", "PERL5OPT",
		"PERL5LIB", "RUBYOPT", "SSH_ASKPASS", "SUDO_ASKPASS", "MAKEFLAGS", "GOFLAGS", "RUSTC_WRAPPER", "CC", "CXX",
		"BROWSER", "TAR_OPTIONS", "ZIPOPT":
		return true
	}
	return strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "npm_config_") ||
		strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(name, "CARGO_") || strings.HasPrefix(name, "DYLD_")
}
