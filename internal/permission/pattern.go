package permission

import (
	"fmt"
	"path"
	"strings"
)

// Pattern matches tool calls: "bash" (any call), "bash(go test:*)" (a
// subject starting with "go test"), "edit(docs/README.md)" (exactly that
// subject), as in Claude Code's --allowedTools. MCP tools are also matched
// by a glob ("mcp__github__*") or by their server ("mcp__github").
type Pattern struct {
	Tool     string
	HasArg   bool
	Prefix   string
	Wildcard bool // Prefix followed by ":*"
}

// ParsePattern parses one pattern.
func ParsePattern(s string) (Pattern, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Pattern{}, fmt.Errorf("empty tool pattern")
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if strings.ContainsAny(s, ") ") {
			return Pattern{}, fmt.Errorf("bad tool pattern %q (want tool or tool(arg) or tool(prefix:*))", s)
		}
		if _, err := path.Match(s, ""); err != nil {
			return Pattern{}, fmt.Errorf("bad tool pattern %q: %w", s, err)
		}
		return Pattern{Tool: strings.ToLower(s)}, nil
	}
	if !strings.HasSuffix(s, ")") || open == 0 {
		return Pattern{}, fmt.Errorf("bad tool pattern %q (want tool or tool(arg) or tool(prefix:*))", s)
	}
	p := Pattern{Tool: strings.ToLower(s[:open]), HasArg: true}
	arg := s[open+1 : len(s)-1]
	if a, ok := strings.CutSuffix(arg, ":*"); ok {
		p.Prefix, p.Wildcard = a, true
	} else if a, ok := strings.CutSuffix(arg, "*"); ok {
		p.Prefix, p.Wildcard = a, true
	} else {
		p.Prefix = arg
	}
	return p, nil
}

// MatchTool reports whether p names tool: exactly, by a glob, or, for an
// MCP tool, by its server (mcp__github covers mcp__github__create_issue).
func (p Pattern) MatchTool(tool string) bool {
	if strings.EqualFold(p.Tool, tool) {
		return true
	}
	tool = strings.ToLower(tool)
	if strings.ContainsAny(p.Tool, "*?[") {
		ok, _ := path.Match(p.Tool, tool)
		return ok
	}
	server, isMCP := strings.CutPrefix(p.Tool, "mcp__")
	return isMCP && !strings.Contains(server, "__") && strings.HasPrefix(tool, p.Tool+"__")
}

// Match reports whether a call of tool with subject matches.
func (p Pattern) Match(tool, subject string) bool {
	if !p.MatchTool(tool) {
		return false
	}
	if !p.HasArg {
		return true
	}
	if p.Wildcard {
		// "go test:*" matches "go test" and "go test ./..." but not "go testify".
		if subject == p.Prefix {
			return true
		}
		return strings.HasPrefix(subject, p.Prefix) &&
			(strings.HasSuffix(p.Prefix, " ") || strings.HasPrefix(subject[len(p.Prefix):], " ") || p.Prefix == "")
	}
	return subject == p.Prefix
}

func (p Pattern) String() string {
	if !p.HasArg {
		return p.Tool
	}
	if p.Wildcard {
		return p.Tool + "(" + p.Prefix + ":*)"
	}
	return p.Tool + "(" + p.Prefix + ")"
}

// ParseList splits a flag value like "read,bash(go test:*) edit" into
// patterns' source strings, keeping parentheses whole.
func ParseList(s string) []string {
	var out []string
	depth, start := 0, -1
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case (r == ',' || r == ' ') && depth == 0:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}
