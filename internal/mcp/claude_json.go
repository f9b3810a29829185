package mcp

import (
	"encoding/json"
	"fmt"
)

// claudeJSON is Claude Code's ~/.claude.json as far as MCP servers go,
// parsed once per Load (the file also holds Claude Code's history of
// every project, and can be large).
type claudeJSON struct {
	path   string
	parsed *claudeJSONFile
}

type claudeJSONFile struct {
	MCPServers json.RawMessage `json:"mcpServers"`
	Projects   map[string]struct {
		MCPServers json.RawMessage `json:"mcpServers"`
	} `json:"projects"`
}

// section is the {"mcpServers": …} of the user scope (project "") or of
// project's local scope, and the name its servers are reported under;
// nil data when that scope has no servers.
func (c *claudeJSON) section(path string, data []byte, project string) ([]byte, string, error) {
	if c.parsed == nil || c.path != path {
		var f claudeJSONFile
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, "", fmt.Errorf("%s: %s", path, jsonProblem(data, err))
		}
		c.path, c.parsed = path, &f
	}
	raw, name := c.parsed.MCPServers, path
	if project != "" {
		raw, name = c.parsed.Projects[project].MCPServers, path+" (projects."+project+")"
	}
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return nil, "", nil
	}
	out, err := json.Marshal(map[string]json.RawMessage{"mcpServers": raw})
	return out, name, err
}
