package spawn

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
