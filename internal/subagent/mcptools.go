package subagent

import (
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/tools"
)

// resolveMCP expands an agent type's tool list against the tools on offer:
// an MCP server name (mcp__github) stands for every tool of that server.
// MCP names not on offer are returned as missing rather than failing the
// spawn: their server may be still starting or have failed, and the agent
// starts without them (the caller warns). Other names pass unchanged, so
// Set.Only still rejects a typo in a built-in tool's name.
func resolveMCP(set *tools.Set, names []string) (resolved, missing []string) {
	offered := set.Names()
	for _, n := range names {
		if !strings.HasPrefix(n, "mcp__") || slices.Contains(offered, n) {
			resolved = append(resolved, n)
			continue
		}
		found := false
		for _, o := range offered {
			if strings.HasPrefix(o, n+"__") && !strings.Contains(strings.TrimPrefix(n, "mcp__"), "__") {
				resolved, found = append(resolved, o), true
			}
		}
		if !found {
			missing = append(missing, n)
		}
	}
	return resolved, missing
}

// warnOnce gives w to Config.Warn the first time only: every spawn of a
// type would otherwise repeat it.
func (m *Manager) warnOnce(w string) {
	if m.cfg.Warn == nil {
		return
	}
	m.mu.Lock()
	seen := m.warned[w]
	if m.warned == nil {
		m.warned = map[string]bool{}
	}
	m.warned[w] = true
	m.mu.Unlock()
	if !seen {
		m.cfg.Warn(w)
	}
}
