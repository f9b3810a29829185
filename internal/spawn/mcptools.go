package spawn

import (
	"context"
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

// readOnlyMCP adds to set the MCP tools on offer in from that their
// server marks read-only (their Kind), and lets set await one of a server
// still starting under the same rule; others stay out, since they may act.
func readOnlyMCP(from, set *tools.Set) {
	readOnly := func(t tools.Tool) bool { return strings.HasPrefix(t.Name(), "mcp__") && t.Kind() == tools.ReadOnly }
	for _, n := range from.Names() {
		if t, ok := from.Get(n); ok && readOnly(t) {
			set.Add(t)
		}
	}
	set.AddAwaiter(func(ctx context.Context, name string) (tools.Tool, bool) {
		if !strings.HasPrefix(name, "mcp__") {
			return nil, false
		}
		t, ok := from.Await(ctx, name)
		if !ok || !readOnly(t) {
			return nil, false
		}
		return t, true
	})
}
