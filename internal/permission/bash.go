package permission

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// bashVerdict is the gate's reading of one bash call.
type bashVerdict struct {
	decision Decision
	decided  bool
	// rules are what "allow for this session" adds: one per simple
	// command not yet allowed (opaque ones have none).
	rules []Pattern
	// headless is the denial when nobody can be asked.
	headless string
}

// bash decides a bash call from its simple commands (splitCommands). A
// deny rule matching any command, or a wrapped or nested one, denies the
// line. The line is allowed when every command is: by the mode
// (bypassPermissions), by an allow of all of bash, or by an allow or
// session rule of its own. A command writing to a file, or in a form that
// runs other programs or writes through its arguments (Exact, see
// programs.go), is covered only by an exact rule or all of bash. A line
// that does not parse, or holds an opaque command (a name known only when
// it runs, a construct the analysis does not understand, a script read
// from standard input), is allowed only by all of bash; and no line with
// an opaque or hidden command (one running what deny rules cannot see) is
// allowed while a scoped bash deny rule is in force.
func (g *Gate) bash(req Request) bashVerdict {
	const flagsHint = "no one can answer a prompt in headless mode"
	scopedDeny := false
	denied := g.denyRules()
	for _, p := range denied {
		if !strings.EqualFold(p.Tool, "bash") {
			continue
		}
		if !p.HasArg || p.Wildcard && p.Prefix == "" || p.Match("bash", req.Subject) {
			return g.deniedBy(req, "", p)
		}
		scopedDeny = true
	}
	cmds, err := splitCommands(req.Subject)
	if err == nil {
		for _, c := range cmds {
			for _, p := range denied {
				if !strings.EqualFold(p.Tool, "bash") {
					continue
				}
				for _, text := range append([]string{c.Text}, c.DenyAlso...) {
					if p.Match("bash", text) {
						return g.deniedBy(req, c.Text, p)
					}
				}
			}
		}
	}
	mode, session, allowed := g.Mode(), g.sessionRules(), g.allowedFor(req)
	allBash := mode == BypassPermissions || slices.ContainsFunc(allowed, coversAllBash) ||
		mode != Plan && slices.ContainsFunc(session, coversAllBash)
	if err != nil {
		why := fmt.Sprintf("%s cannot be parsed (%v), so no rule can approve it", g.describe(req), err)
		switch {
		case allBash && !scopedDeny:
			return bashVerdict{decision: Decision{Allow: true}, decided: true}
		case mode == Plan:
			return bashVerdict{decision: g.planDenial(req), decided: true}
		}
		return bashVerdict{headless: fmt.Sprintf("permission denied: %s; %s; fix the command's syntax", why, flagsHint)}
	}
	var hidden []string
	for _, c := range cmds {
		if c.Opaque || c.Hidden {
			hidden = append(hidden, explain(c))
		}
	}
	if len(hidden) > 0 && scopedDeny {
		if mode == Plan {
			return bashVerdict{decision: g.planDenial(req), decided: true}
		}
		return bashVerdict{headless: fmt.Sprintf("permission denied: %s runs %s, so a deny rule might match what it runs; %s; write the commands out literally",
			g.describe(req), strings.Join(hidden, ", "), flagsHint)}
	}
	if allBash {
		return bashVerdict{decision: Decision{Allow: true}, decided: true}
	}
	var need []command
	for _, c := range cmds {
		if c.Transparent || covered(c, allowed) || mode != Plan && covered(c, session) {
			continue
		}
		need = append(need, c)
	}
	if len(need) == 0 {
		return bashVerdict{decision: Decision{Allow: true}, decided: true}
	}
	if mode == Plan {
		return bashVerdict{decision: g.planDenial(req), decided: true}
	}
	var rules []Pattern
	var names, texts, opaque []string
	for _, c := range need {
		if c.Opaque {
			opaque = append(opaque, explain(c))
			continue
		}
		texts = append(texts, explain(c))
		r, ok := bashRule(c)
		if !ok || slices.Contains(rules, r) {
			continue
		}
		rules = append(rules, r)
		names = append(names, r.String())
	}
	if len(opaque) > 0 {
		// Only all of bash covers what cannot be read: name that, not
		// rules that would not be enough.
		return bashVerdict{rules: rules, headless: fmt.Sprintf("permission denied: %s runs %s, which the permission analysis cannot read, so it needs approval, and %s; allow it with --allowed-tools bash or --permission-mode bypassPermissions",
			g.describe(req), strings.Join(append(opaque, texts...), ", "), flagsHint)}
	}
	allow := "--permission-mode bypassPermissions"
	if len(names) > 0 {
		allow = fmt.Sprintf("--allowed-tools '%s' or %s", strings.Join(names, ","), allow)
	}
	why := "needs approval for " + strings.Join(texts, ", ")
	return bashVerdict{rules: rules, headless: fmt.Sprintf("permission denied: %s %s and %s; allow it with %s", g.describe(req), why, flagsHint, allow)}
}

// explain quotes a command for a message, with why it needs more than a
// prefix rule.
func explain(c command) string {
	if c.Why == "" {
		return "`" + c.Text + "`"
	}
	return "`" + c.Text + "` (" + c.Why + ")"
}

func (g *Gate) deniedBy(req Request, cmd string, p Pattern) bashVerdict {
	what := g.describe(req)
	if cmd != "" && cmd != req.Subject {
		what += fmt.Sprintf(" runs `%s`, which", cmd)
	}
	return bashVerdict{decision: Decision{Reason: fmt.Sprintf("permission denied: %s is disallowed by %s %q", what, g.denySource(p), p.String())}, decided: true}
}

// coversAllBash: bash, bash(*), bash(:*).
func coversAllBash(p Pattern) bool {
	return strings.EqualFold(p.Tool, "bash") && (!p.HasArg || p.Wildcard && p.Prefix == "")
}

// covered reports whether one of rules allows the simple command c.
func covered(c command, rules []Pattern) bool {
	for _, p := range rules {
		switch {
		case !strings.EqualFold(p.Tool, "bash"):
		case coversAllBash(p):
			return true
		case c.Opaque:
		case c.Writes || c.Exact:
			if !p.Wildcard && p.Prefix == c.Text {
				return true
			}
		case p.Match("bash", c.Text):
			return true
		}
	}
	return false
}

// exactOnly are commands whose arguments decide what they run or where
// they write (interpreters, wrappers, privilege changes): approving one
// for the session approves that exact command, never a prefix.
func exactOnly(k string) bool {
	switch k {
	case "bash", "sh", "zsh", "dash", "ksh", "fish", "eval", "exec", "source", ".", "python",
		"python2", "python3", "node", "nodejs", "deno", "perl", "ruby", "php", "lua", "awk", "gawk",
		"osascript", "pwsh", "powershell", "su":
		return true
	}
	return false
}

// subcommand is a second word worth keeping in a rule: go test, npm run,
// echo ok; not an option, a path or a file name.
var subcommand = lazy.Regexp{Expr: `^[A-Za-z][A-Za-z0-9_-]*$`}

// bashRule is the session rule proposed for a simple command, spelt as
// Claude Code spells its prefix rules (Bash(npm run test:*)): the command
// and its subcommand followed by :*. Commands that write to files,
// start with assignments, run other commands or interpreters get an exact
// rule instead. Opaque commands get none.
func bashRule(c command) (Pattern, bool) {
	if c.Opaque || len(c.Words) == 0 {
		return Pattern{}, false
	}
	name := path.Base(c.Words[0])
	exact := c.Writes || c.Exact || c.Hidden || !strings.HasPrefix(c.Text, c.Words[0]) || exactOnly(name) || wrappers(name) ||
		name == "find" && slices.ContainsFunc(c.Words, func(w string) bool {
			return w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir" || w == "-delete"
		})
	if exact {
		return Pattern{Tool: "bash", HasArg: true, Prefix: c.Text}, true
	}
	prefix := c.Words[0]
	if len(c.Words) > 1 && subcommand.Get().MatchString(c.Words[1]) {
		prefix += " " + c.Words[1]
	}
	return Pattern{Tool: "bash", HasArg: true, Prefix: prefix, Wildcard: true}, true
}
