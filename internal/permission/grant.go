package permission

import (
	"fmt"
	"slices"
	"strings"
)

// Grant allows rules to agentID's calls without asking until Revoke: a
// skill's allowed-tools, written Claude Code's way ("Bash(git add:*)",
// "Read", "WebFetch") or Atomic's. It loosens only what would be asked:
// deny rules of every kind, --disallowed-tools, declines for the session
// and plan mode still hold (plan mode stays read-only). A rule that does
// not parse or names a tool Atomic lacks is not granted; the error names
// each such rule (the others are granted).
func (g *Gate) Grant(agentID string, rules []string) error {
	var pats []Pattern
	var bad []string
	for _, r := range rules {
		p, err := ParsePattern(r)
		if err != nil {
			bad = append(bad, r)
			continue
		}
		name, ok := claudeToolName(p.Tool)
		if !ok {
			bad = append(bad, r)
			continue
		}
		p.Tool = name
		pats = append(pats, p)
	}
	g.mu.Lock()
	if g.grants == nil {
		g.grants = map[string][]Pattern{}
	}
	g.grants[agentID] = append(g.grants[agentID], pats...)
	g.mu.Unlock()
	if len(bad) > 0 {
		return fmt.Errorf("not granted (not tool rules Atomic knows): %s", strings.Join(bad, ", "))
	}
	return nil
}

// Revoke ends agentID's grants (its turn ended, or it finished).
func (g *Gate) Revoke(agentID string) {
	g.mu.Lock()
	delete(g.grants, agentID)
	g.mu.Unlock()
}

// allowedFor is the allow patterns for req: the gate's own and, outside
// plan mode, what was granted to its agent.
func (g *Gate) allowedFor(req Request) []Pattern {
	g.mu.Lock()
	granted := g.grants[req.AgentID]
	g.mu.Unlock()
	if len(granted) == 0 || g.Mode() == Plan {
		return g.allowed
	}
	return append(slices.Clone(g.allowed), granted...)
}

// claudeToolName maps a tool name as Claude Code spells it (lower-cased
// by ParsePattern) to Atomic's; Atomic's own names and MCP tools pass.
func claudeToolName(low string) (string, bool) {
	switch low {
	case "read", "write", "edit", "bash", "glob", "grep", "ls", "web_fetch", "multi_edit", "todo_write":
		return low, true
	case "multiedit":
		return "multi_edit", true
	case "webfetch":
		return "web_fetch", true
	case "todowrite":
		return "todo_write", true
	}
	if strings.HasPrefix(low, "mcp__") {
		return low, true
	}
	return "", false
}
