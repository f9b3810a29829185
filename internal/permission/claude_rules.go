package permission

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/atomic-agent/atomic/internal/tools"
)

// Claude Code's permission rules (the allow, deny and ask lists of its
// settings files) spelt as Claude Code spells them: Read(./.env),
// Edit(docs/**), Bash(npm run test:*), Bash(git * main),
// WebFetch(domain:go.dev), mcp__github. A Read rule covers every tool that
// reads files (read, grep, glob, ls), an Edit rule every tool that changes
// them (edit, multi_edit, write), as in Claude Code. Path arguments follow
// Claude Code's gitignore-like syntax: //abs is absolute, ~/p is below the
// home folder, /p is below the project the settings file belongs to, and
// ./p or p is below the working directory, at any depth when it has no
// slash (Read(*.env) covers a/b/c.env); ** spans folders, and a rule on a
// folder covers everything in it.

// RuleKind says what a settings rule does to the calls it matches.
type RuleKind string

// Rule kinds, as the settings lists are named.
const (
	RuleAllow RuleKind = "allow"
	RuleDeny  RuleKind = "deny"
	RuleAsk   RuleKind = "ask"
)

// RuleDirs are the folders a rule's path resolves against.
type RuleDirs struct {
	// Cwd is the working directory (./p and p).
	Cwd string
	// Home is the user's home folder (~/p).
	Home string
	// Project is the folder whose .claude holds the settings file (/p).
	Project string
}

// ClaudeRule is one parsed rule of a Claude Code settings file.
type ClaudeRule struct {
	Kind RuleKind
	// Text is the rule as written, Source the file it came from: both
	// are named in denials.
	Text   string
	Source string
	// tools are the Atomic tools the rule covers; none when it names a
	// tool Atomic does not have (NotebookEdit, WebSearch).
	tools []string
	// exactly one of these matches the call's argument; none of them set
	// means every call of tools matches.
	paths   *pathRule
	bash    *claudeBash
	pattern *Pattern
}

// Supported reports whether the rule names a tool Atomic has.
func (r ClaudeRule) Supported() bool { return len(r.tools) > 0 }

// Unapplied says why an allow rule that parses is not applied; "" when
// it is. Atomic allows bash per simple command by prefix, so a Bash allow
// with a * inside the command (Bash(git * main)) allows nothing; deny and
// ask rules of that form are applied.
func (r ClaudeRule) Unapplied() string {
	if r.Kind == RuleAllow && r.bash != nil && r.bash.pattern == nil {
		return "Atomic allows commands by prefix (Bash(git push:*), Bash(ls *)), not with a * inside the command; not applied"
	}
	return ""
}

// claudeToolFamilies maps a Claude Code tool name (lower-cased) to the
// Atomic tools a rule naming it covers, nil for a tool Atomic lacks. (A
// switch, not a map: a package-level map is built at init in every
// process.)
func claudeToolFamilies(low string) []string {
	switch low {
	case "read":
		return []string{"read", "grep", "glob", "ls"}
	case "edit":
		return []string{"edit", "multi_edit", "write"}
	case "write", "glob", "grep", "ls", "bash", "task":
		return []string{low}
	case "multiedit":
		return []string{"multi_edit"}
	case "webfetch":
		return []string{webFetchTool}
	case "todowrite":
		return []string{"todo_write"}
	case "agent":
		return []string{"task"}
	}
	return nil
}

// pathFamilies are the Claude Code tools whose argument is a path.
func pathFamilies(k string) bool {
	switch k {
	case "read", "edit", "write", "multiedit":
		return true
	}
	return false
}

// ParseClaudeRule parses one rule of a settings file's list kind, read
// from source. A rule that is not Tool or Tool(argument) is an error;
// one naming a tool Atomic lacks parses but is not Supported.
func ParseClaudeRule(kind RuleKind, text, source string, dirs RuleDirs) (ClaudeRule, error) {
	r := ClaudeRule{Kind: kind, Text: text, Source: source}
	s := strings.TrimSpace(text)
	name, arg, hasArg := s, "", false
	if open := strings.IndexByte(s, '('); open >= 0 {
		if open == 0 || !strings.HasSuffix(s, ")") {
			return r, fmt.Errorf("rule %q: want Tool or Tool(argument), e.g. Read(./.env) or Bash(npm run test:*)", text)
		}
		name, arg, hasArg = s[:open], s[open+1:len(s)-1], true
	}
	if name == "" || strings.ContainsAny(name, " ()") {
		return r, fmt.Errorf("rule %q: want Tool or Tool(argument), e.g. Read(./.env) or Bash(npm run test:*)", text)
	}
	low := strings.ToLower(name)
	if strings.HasPrefix(low, "mcp__") {
		if hasArg {
			return r, fmt.Errorf("rule %q: MCP rules take no argument (mcp__server or mcp__server__tool)", text)
		}
		p, err := ParsePattern(low)
		if err != nil {
			return r, fmt.Errorf("rule %q: %w", text, err)
		}
		r.tools, r.pattern = []string{low}, &p
		return r, nil
	}
	r.tools = claudeToolFamilies(low)
	if !hasArg || len(r.tools) == 0 || arg == "*" || arg == "**" {
		return r, nil
	}
	switch {
	case pathFamilies(low):
		p, err := newPathRule(arg, dirs)
		if err != nil {
			return r, fmt.Errorf("rule %q: %w", text, err)
		}
		r.paths = p
	case low == "bash":
		b, err := newClaudeBash(arg)
		if err != nil {
			return r, fmt.Errorf("rule %q: %w", text, err)
		}
		r.bash = b
	default:
		p, err := ParsePattern(r.tools[0] + "(" + arg + ")")
		if err != nil {
			return r, fmt.Errorf("rule %q: %w", text, err)
		}
		r.pattern = &p
	}
	return r, nil
}

// pathRule matches absolute paths against a rule's glob.
type pathRule struct {
	// globs are the rule as absolute doublestar patterns: with the base
	// folder as given and, when it differs, with its symlinks resolved.
	globs []string
	// literal is the file or folder a rule anchored to a folder (//, ~/,
	// /) covers entirely (p or p/**); "" for any other rule.
	literal string
}

func newPathRule(arg string, dirs RuleDirs) (*pathRule, error) {
	arg = filepath.ToSlash(strings.TrimSpace(arg))
	if arg == "" {
		return nil, fmt.Errorf("empty path")
	}
	var base, rest string
	anchored := true
	switch {
	case strings.HasPrefix(arg, "//"):
		base, rest = "/", arg[2:]
	case arg == "~" || strings.HasPrefix(arg, "~/"):
		if dirs.Home == "" {
			return nil, fmt.Errorf("~ used but the home folder is unknown")
		}
		base, rest = dirs.Home, strings.TrimPrefix(strings.TrimPrefix(arg, "~"), "/")
	case strings.HasPrefix(arg, "/"):
		base, rest = dirs.Project, arg[1:]
	default:
		base, rest = dirs.Cwd, strings.TrimPrefix(arg, "./")
		// gitignore: a pattern with no slash but a trailing one matches
		// at any depth.
		anchored = strings.Contains(strings.TrimSuffix(rest, "/"), "/")
	}
	if base == "" {
		return nil, fmt.Errorf("no folder to resolve %q against", arg)
	}
	rest = strings.TrimSuffix(rest, "/")
	if !anchored {
		rest = "**/" + rest
	}
	if !doublestar.ValidatePattern(rest) {
		return nil, fmt.Errorf("bad glob %q", arg)
	}
	p := &pathRule{}
	if anchored {
		// Only a rule covering a whole file or folder (p, p/**): a wildcard
		// elsewhere would make the sandbox refuse more than the rule says.
		var segs []string
		tail := ""
		for i, seg := range strings.Split(rest, "/") {
			if strings.ContainsAny(seg, `*?[]{}\`) {
				tail = strings.Join(strings.Split(rest, "/")[i:], "/")
				break
			}
			segs = append(segs, seg)
		}
		if tail == "" || tail == "**" {
			p.literal = filepath.Join(append([]string{base}, segs...)...)
		}
	}
	add := func(b string) {
		g := strings.TrimSuffix(escapeGlob(filepath.ToSlash(filepath.Clean(b))), "/")
		if rest != "" {
			g += "/" + rest
		}
		if g == "" {
			g = "/"
		}
		for _, have := range p.globs {
			if have == g {
				return
			}
		}
		p.globs = append(p.globs, g)
	}
	add(base)
	if real, err := tools.RealPath(base); err == nil {
		add(real)
	}
	return p, nil
}

// escapeGlob quotes doublestar's special characters in a literal path.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// match reports whether the clean absolute path abs, or a folder holding
// it, matches: a rule on a folder covers what is inside.
func (p *pathRule) match(abs string) bool {
	abs = filepath.ToSlash(filepath.Clean(abs))
	for cur := abs; ; {
		for _, g := range p.globs {
			if ok, _ := doublestar.Match(g, cur); ok {
				return true
			}
		}
		parent := pathParent(cur)
		if parent == cur {
			return false
		}
		cur = parent
	}
}

func pathParent(p string) string {
	i := strings.LastIndexByte(p, '/')
	switch {
	case i < 0:
		return p
	case i == 0:
		return "/"
	}
	return p[:i]
}

// claudeBash matches one simple command: Claude Code's prefix form
// (npm run test:*), its wildcard form (git * main, where * spans any
// text), or the exact command.
type claudeBash struct {
	re *regexp.Regexp
	// pattern is the rule as --allowed-tools spells it, when it can be
	// (no * inside): allow rules become such patterns.
	pattern *Pattern
}

func newClaudeBash(arg string) (*claudeBash, error) {
	arg = strings.TrimSpace(arg)
	if prefix, ok := strings.CutSuffix(arg, ":*"); ok {
		p := Pattern{Tool: "bash", HasArg: true, Prefix: prefix, Wildcard: true}
		return &claudeBash{re: regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `(\s.*)?$`), pattern: &p}, nil
	}
	if !strings.Contains(arg, "*") {
		p := Pattern{Tool: "bash", HasArg: true, Prefix: arg}
		return &claudeBash{re: regexp.MustCompile(`^` + regexp.QuoteMeta(arg) + `$`), pattern: &p}, nil
	}
	// "ls *" with its only * at the end after a space: ls, ls -la, not lsof.
	if prefix, ok := strings.CutSuffix(arg, " *"); ok && !strings.Contains(prefix, "*") {
		p := Pattern{Tool: "bash", HasArg: true, Prefix: prefix, Wildcard: true}
		return &claudeBash{re: regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `(\s.*)?$`), pattern: &p}, nil
	}
	parts := strings.Split(arg, "*")
	for i, part := range parts {
		parts[i] = regexp.QuoteMeta(part)
	}
	re, err := regexp.Compile(`^` + strings.Join(parts, `.*`) + `$`)
	if err != nil {
		return nil, err
	}
	return &claudeBash{re: re}, nil
}

// allowPatterns are the settings' allow rules for bash as --allowed-tools
// patterns, which the bash analysis applies per simple command, and the
// ones it cannot express (a * inside the command), which are not used.
func allowPatterns(rules []ClaudeRule) (pats []Pattern, unused []ClaudeRule) {
	for _, r := range rules {
		if r.Kind != RuleAllow || len(r.tools) != 1 || r.tools[0] != "bash" {
			continue
		}
		switch {
		case r.bash == nil:
			pats = append(pats, Pattern{Tool: "bash"})
		case r.bash.pattern != nil:
			pats = append(pats, *r.bash.pattern)
		default:
			unused = append(unused, r)
		}
	}
	return pats, unused
}

// ruleMatches reports whether r applies to req; for path rules the
// call's path matches as written or resolved for deny and ask rules,
// only as resolved for allow rules (the file really touched).
func (g *Gate) ruleMatches(r ClaudeRule, req Request) bool {
	tool := strings.ToLower(req.Tool)
	covered := false
	for _, t := range r.tools {
		if t == tool || strings.HasPrefix(t, "mcp__") && r.pattern != nil && r.pattern.MatchTool(tool) {
			covered = true
			break
		}
	}
	if !covered {
		return false
	}
	switch {
	case r.paths != nil:
		lexical, real, ok := g.callPath(req)
		if !ok {
			return r.Kind != RuleAllow // a path it cannot place: deny and ask rules hold
		}
		if r.Kind == RuleAllow {
			return r.paths.match(real)
		}
		return r.paths.match(lexical) || r.paths.match(real)
	case r.bash != nil:
		return r.bash.re.MatchString(strings.TrimSpace(req.Subject))
	case r.pattern != nil:
		return g.match(*r.pattern, req, r.Kind != RuleAllow)
	}
	return true
}

// callPath is the absolute path a file tool's call touches, as written
// and with symlinks resolved: the subject of read, write, edit,
// multi_edit and ls, the path argument of grep and glob (default: the
// workspace root).
func (g *Gate) callPath(req Request) (lexical, real string, ok bool) {
	p := req.Subject
	switch strings.ToLower(req.Tool) {
	case "grep", "glob":
		var in struct {
			Path string `json:"path"`
		}
		if len(req.Input) > 0 && json.Unmarshal(req.Input, &in) != nil {
			return "", "", false
		}
		p = in.Path
		if p == "" {
			p = "."
		}
	}
	if p == "" {
		return "", "", false
	}
	root := g.root
	if root == "" {
		root = "."
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return "", "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	lexical = filepath.Clean(p)
	real, err = tools.RealPath(lexical)
	if err != nil {
		real = lexical
	}
	return lexical, real, true
}
