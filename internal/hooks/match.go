package hooks

import (
	"regexp"
	"strings"
)

// compile turns a matcher into what it matches, as Claude Code reads it:
// "" and "*" match everything; a plain name or names joined by | match
// exactly; anything else is a regular expression matched against the
// whole name (nil: everything).
func compile(m string) (*regexp.Regexp, error) {
	m = strings.TrimSpace(m)
	if m == "" || m == "*" {
		return nil, nil
	}
	return regexp.Compile("^(?:" + m + ")$")
}

// matches reports whether g's matcher covers any of names (a tool's
// Claude Code name and Atomic's own, a source, a trigger). An invalid
// matcher, already warned about at Parse, matches nothing.
func (g Group) matches(names ...string) bool {
	re := g.re
	if !g.compiled {
		var err error
		if re, err = compile(g.Matcher); err != nil {
			return false
		}
	}
	if re == nil {
		return true
	}
	for _, n := range names {
		if n != "" && re.MatchString(n) {
			return true
		}
	}
	return false
}

// ClaudeToolName is the name Claude Code gives Atomic's tool name: what
// matchers ("Bash", "Edit|Write") and hooks' tool_name speak of. MCP tools
// (mcp__server__tool) and tools Claude Code lacks keep Atomic's name.
func ClaudeToolName(ours string) string {
	switch ours {
	case "bash":
		return "Bash"
	case "read":
		return "Read"
	case "write":
		return "Write"
	case "edit":
		return "Edit"
	case "multi_edit":
		return "MultiEdit"
	case "glob":
		return "Glob"
	case "grep":
		return "Grep"
	case "ls":
		return "LS"
	case "web_fetch":
		return "WebFetch"
	case "todo_write":
		return "TodoWrite"
	case "task":
		return "Task"
	}
	return ours
}

// toolNames are the names a tool's matcher may use: Claude Code's (Task is
// also Agent, its newer name) and Atomic's own.
func toolNames(ours string) []string {
	c := ClaudeToolName(ours)
	if c == "Task" {
		return []string{c, "Agent", ours}
	}
	return []string{c, ours}
}
