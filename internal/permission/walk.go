package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// walker collects the commands of one parsed line.
type walker struct {
	src   string
	depth int
	out   []command
	// frames has one entry per node being visited.
	frames []frame
}

// frame is what is in force at one node of the walk.
type frame struct {
	// writes are the file redirections applying to the commands inside.
	writes []string
	// arith is set inside an arithmetic expression already checked to
	// hold only literal numbers (literalArithm).
	arith bool
	// own are a statement's own file redirections, and mark the number of
	// commands found before it: a statement that writes but yields no
	// command (>out, case x in esac >out) is a write of its own.
	own  []string
	mark int
}

// unknown records a construct the analysis does not fully understand: an
// opaque pseudo-command no rule short of all of bash covers.
func (w *walker) unknown(n syntax.Node, why string) {
	w.out = append(w.out, command{Text: source(w.src, n), Opaque: true, Why: why})
}

// visit is the allow-list. Each case is a node kind whose meaning the
// analysis knows in full; the checks inside reject its forms that make
// bash evaluate text as code. The default case is everything else.
func (w *walker) visit(n syntax.Node) bool {
	if n == nil {
		top := w.frames[len(w.frames)-1]
		w.frames = w.frames[:len(w.frames)-1]
		if len(top.own) > 0 && len(w.out) == top.mark {
			w.out = append(w.out, command{Text: strings.Join(top.own, " "), Writes: true})
		}
		return true
	}
	var f frame
	if len(w.frames) > 0 {
		f = w.frames[len(w.frames)-1]
	}
	f.own = nil
	switch n := n.(type) {
	case *syntax.File, *syntax.Comment, *syntax.Word, *syntax.Lit, *syntax.SglQuoted,
		*syntax.Block, *syntax.Subshell, *syntax.BinaryCmd, *syntax.IfClause, *syntax.WhileClause,
		*syntax.CaseClause, *syntax.CaseItem, *syntax.WordIter, *syntax.ExtGlob, *syntax.TimeClause,
		*syntax.ArrayExpr, *syntax.ParenTest:
		// Structure and plain words: their parts are checked on their own.
	case *syntax.DblQuoted:
		if n.Dollar {
			w.unknown(n, "a $\"…\" string is translated through a message catalog and expanded again")
		}
	case *syntax.Stmt:
		if n.Coprocess || n.Disown {
			w.unknown(n, "not bash syntax")
		}
		if r := fileRedirects(w.src, n.Redirs); len(r) > 0 {
			f.writes = append(append([]string{}, f.writes...), r...)
			f.own, f.mark = r, len(w.out)
		}
	case *syntax.Redirect:
		if why := redirectProblem(n); why != "" {
			w.unknown(n, why)
		}
	case *syntax.CmdSubst:
		if n.TempFile || n.ReplyVar {
			w.unknown(n, "not bash syntax")
		}
		f.writes = nil // its output is captured, not written by the outer redirection
	case *syntax.ProcSubst:
		f.writes = nil
	case *syntax.ForClause:
		if n.Select {
			w.unknown(n, "select reads its choice from standard input")
		}
	case *syntax.CallExpr:
		w.out = append(w.out, callCommands(w.src, n, f.writes, w.depth)...)
	case *syntax.DeclClause:
		w.out = append(w.out, declCommand(w.src, n, f.writes))
	case *syntax.Assign:
		if why := assignProblem(n); why != "" {
			w.unknown(n, why)
		} else if n.Index != nil {
			f.arith = true
		}
	case *syntax.ArrayElem:
		if n.Index != nil && !literalArithm(n.Index) {
			w.unknown(n, subscriptWhy)
		} else if n.Index != nil {
			f.arith = true
		}
	case *syntax.ParamExp:
		if why := paramProblem(n); why != "" {
			w.unknown(n, why)
		} else if n.Index != nil || n.Slice != nil {
			f.arith = true
		}
	case *syntax.ArithmExp:
		if !literalArithm(n.X) {
			w.unknown(n, arithWhy)
		}
		f.arith = true // checked: reported once, not again for each operand
	case *syntax.ArithmCmd:
		if !literalArithm(n.X) {
			w.unknown(n, arithWhy)
		} else {
			w.keyword(n, "((", f.writes)
		}
		f.arith = true
	case *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm:
		if !f.arith {
			w.unknown(n, arithWhy)
		}
	case *syntax.TestClause:
		w.keyword(n, "[[", f.writes)
	case *syntax.BinaryTest:
		if why := binaryTestProblem(n); why != "" {
			w.unknown(n, why)
		}
	case *syntax.UnaryTest:
		if why := unaryTestProblem(n); why != "" {
			w.unknown(n, why)
		}
	case *syntax.FuncDecl:
		// Its body is read like any other commands, but its name then
		// runs that body wherever the line names it: echo() { …; } makes
		// every later echo something else than the rules say.
		w.unknown(n, "a function definition changes what its name runs in the rest of the line")
	case *syntax.LetClause:
		w.unknown(n, "let evaluates its arguments as arithmetic, whose array subscripts may run commands")
		f.arith = true
	case *syntax.CoprocClause:
		w.unknown(n, "coproc runs a command beside the line, fed from it")
	case *syntax.CStyleLoop:
		w.unknown(n, arithWhy)
		f.arith = true
	default:
		w.unknown(n, "a construct the permission analysis does not understand")
	}
	w.frames = append(w.frames, f)
	return true
}

// keyword records [[ … ]] and (( … )) with literal operands: they run
// nothing and need no approval, unless redirected into a file, which they
// create.
func (w *walker) keyword(n syntax.Node, name string, writes []string) {
	if len(writes) == 0 {
		return
	}
	w.out = append(w.out, command{
		Text:  strings.Join(append([]string{source(w.src, n)}, writes...), " "),
		Words: []string{name}, Writes: true,
	})
}
