package permission

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/atomic-agent/atomic/internal/tools"
)

// How the gate applies the rules of Claude Code settings files: a deny rule
// denies whatever the mode, the allow lists or this session's answers say
// (bypassPermissions included); an ask rule makes a call that would
// otherwise run be asked every time (denied headless, naming the rule and
// its file); an allow rule allows like --allowed-tools. A bash line whose
// commands cannot all be known before it runs is asked when a scoped deny
// or ask rule for bash exists, since the hidden command might match it.

// settingsDeny returns the denial of the first deny rule that surely
// matches req.
func (g *Gate) settingsDeny(req Request, line *lineCommands) (Decision, bool) {
	for _, r := range g.claude {
		if r.Kind != RuleDeny {
			continue
		}
		if matched, _ := g.ruleCovers(r, req, line); matched {
			return Decision{Reason: fmt.Sprintf("permission denied: %s is denied by the rule %q in %s", g.describe(req), r.Text, r.Source)}, true
		}
	}
	return Decision{}, false
}

// settingsAsk returns why req must be asked even when the mode or an
// allow rule would let it run, as the headless denial says it; "" when
// nothing forces a prompt.
func (g *Gate) settingsAsk(req Request, line *lineCommands) string {
	const headless = "and no one can answer a prompt in headless mode"
	for _, r := range g.claude {
		if r.Kind == RuleAllow {
			continue
		}
		matched, unknown := g.ruleCovers(r, req, line)
		switch {
		case r.Kind == RuleAsk && matched:
			return fmt.Sprintf("permission denied: %s matches the ask rule %q in %s, which asks every time, %s", g.describe(req), r.Text, r.Source, headless)
		case unknown:
			return fmt.Sprintf("permission denied: %s runs a command that cannot be known before it runs, and the %s rule %q in %s might match it; it must be asked, %s; write the command out literally",
				g.describe(req), r.Kind, r.Text, r.Source, headless)
		}
	}
	if f := g.settingsFileTouched(req); f != "" {
		return fmt.Sprintf("permission denied: %s changes %s, a Claude Code settings file whose rules govern later runs, which is always asked, %s; edit it yourself",
			g.describe(req), f, headless)
	}
	if g.gitDirTouched(req) {
		return fmt.Sprintf("permission denied: %s changes a file in a git directory, whose hooks and config git runs as programs (a later git status would run them), which is always asked, %s; edit it yourself",
			g.describe(req), headless)
	}
	return ""
}

// gitDirTouched reports whether an edit's file is inside a .git directory
// (the workspace's repository or any other below it), as written or with
// symlinks resolved: git runs its hooks and the programs its config names
// (core.fsmonitor, diff.external, filters), so an edit there would let a
// later allowed `git status` run a command nobody allowed.
func (g *Gate) gitDirTouched(req Request) bool {
	if req.Kind != tools.Edit {
		return false
	}
	lexical, real, ok := g.callPath(req)
	if !ok {
		return false
	}
	root, err := filepath.Abs(g.rootDir())
	if err != nil {
		return false
	}
	realRoot := root
	if r, err := tools.RealPath(root); err == nil {
		realRoot = r
	}
	for _, p := range [][2]string{{root, lexical}, {realRoot, real}, {root, real}} {
		rel, err := filepath.Rel(p[0], p[1])
		if err != nil {
			continue
		}
		for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
			if strings.EqualFold(part, ".git") {
				return true
			}
		}
	}
	return false
}

// lineCommands parses a bash line once for every rule that needs its
// commands.
type lineCommands struct {
	cmds []command
	err  error
	done bool
}

func (l *lineCommands) get(subject string) ([]command, error) {
	if !l.done {
		l.cmds, l.err = splitCommands(subject)
		l.done = true
	}
	return l.cmds, l.err
}

// ruleCovers reports whether r matches req; unknown is set for a bash
// line whose commands cannot all be known, when r is a scoped bash rule
// none of the known commands matches. line holds the line's commands.
func (g *Gate) ruleCovers(r ClaudeRule, req Request, line *lineCommands) (matched, unknown bool) {
	if r.bash == nil || !strings.EqualFold(req.Tool, "bash") {
		return g.ruleMatches(r, req), false
	}
	if g.ruleMatches(r, req) {
		return true, false
	}
	cmds, err := line.get(req.Subject)
	if err != nil {
		return false, true
	}
	for _, c := range cmds {
		if c.Opaque {
			unknown = true
			continue
		}
		for _, text := range append([]string{c.Text}, c.DenyAlso...) {
			if r.bash.re.MatchString(strings.TrimSpace(text)) {
				return true, false
			}
		}
	}
	return false, unknown
}

// settingsAllows reports whether an allow rule of the settings allows
// req (bash allow rules are applied by the bash analysis instead).
func (g *Gate) settingsAllows(req Request) bool {
	for _, r := range g.claude {
		if r.Kind == RuleAllow && g.ruleMatches(r, req) {
			return true
		}
	}
	return false
}

// settingsFileTouched names the Claude Code settings file
// (.claude/settings.json or .claude/settings.local.json) a file tool's
// change would write, "" when none. Any folder's counts, not only the
// workspace's: the settings of every folder from the repository root down
// to the working directory govern a later run started there.
func (g *Gate) settingsFileTouched(req Request) string {
	if req.Kind != tools.Edit {
		return ""
	}
	lexical, real, ok := g.callPath(req)
	if !ok {
		return ""
	}
	for _, p := range []string{lexical, real} {
		if isSettingsFile(p) {
			return p
		}
	}
	return ""
}

// isSettingsFile reports whether p is a .claude/settings.json or
// .claude/settings.local.json, ignoring case as case-insensitive file
// systems (macOS, Windows) do.
func isSettingsFile(p string) bool {
	if p == "" {
		return false
	}
	base := filepath.Base(p)
	return (strings.EqualFold(base, "settings.json") || strings.EqualFold(base, "settings.local.json")) &&
		strings.EqualFold(filepath.Base(filepath.Dir(p)), ".claude")
}

func (g *Gate) rootDir() string {
	if g.root == "" {
		return "."
	}
	return g.root
}

// ReadDenied reports whether a settings deny rule forbids reading the
// file at the absolute path abs (as given, or with symlinks resolved):
// grep and glob skip such files while walking, so a search of the whole
// workspace never returns what Read(./.env) forbids.
func (g *Gate) ReadDenied(abs string) bool {
	real := ""
	for _, r := range g.claude {
		if !isReadDeny(r) {
			continue // no allocation: read for every file grep and glob walk
		}
		if real == "" {
			var err error
			if real, err = tools.RealPath(abs); err != nil {
				real = abs
			}
		}
		if r.paths.match(abs) || r.paths.match(real) {
			return true
		}
	}
	return false
}

// ReadDenyPaths are the folders and files that the settings' Read deny
// rules anchored to a folder (//p, ~/p, /p) cover entirely (p, p/**),
// for the command sandbox to keep from bash as it keeps ~/.ssh. Rules
// matching at any depth below the working directory (Read(./.env)) have
// none: the sandbox lets commands read the whole workspace they may write.
func (g *Gate) ReadDenyPaths() []string {
	var out []string
	for _, r := range g.claude {
		if isReadDeny(r) && r.paths.literal != "" {
			out = append(out, r.paths.literal)
		}
	}
	return out
}

func containsTool(list []string, t string) bool {
	for _, x := range list {
		if x == t {
			return true
		}
	}
	return false
}

// HasReadDeny reports whether any settings rule denies reading a path.
func (g *Gate) HasReadDeny() bool {
	for _, r := range g.claude {
		if isReadDeny(r) {
			return true
		}
	}
	return false
}

// isReadDeny reports whether r is a settings deny rule on reading paths.
func isReadDeny(r ClaudeRule) bool {
	return r.Kind == RuleDeny && r.paths != nil && containsTool(r.tools, "read")
}
