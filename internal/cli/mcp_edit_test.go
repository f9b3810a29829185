package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAtomicMcpAddGetAndRemoveKeepServersWhereClaudeCodeDoes(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	env := mcpEnv(home)
	claudeJSON := filepath.Join(home, ".claude.json")
	// Claude Code's own state in the file is kept as it was.
	writeFile(t, claudeJSON, `{"numStartups": 7, "projects": {"/elsewhere": {"allowedTools": ["Bash"]}}}`)

	steps := []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"mcp", "add", "-e", "TOKEN=s3cret", "files", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, 0, "Added stdio MCP server files to local config (" + claudeJSON + ")", ""},
		{[]string{"mcp", "add", "-s", "user", "-t", "http", "-H", "Authorization: Bearer abc", "docs", "https://example.com/mcp"}, 0, "Added http MCP server docs to user config", ""},
		{[]string{"mcp", "add-json", "-s", "project", "db", `{"command":"db-server","args":["--port","5432"]}`}, 0, "atomic mcp trust db", ""},
		{[]string{"mcp", "add", "files", "other"}, 1, "", `MCP server "files" already exists in local config`},
		{[]string{"mcp", "add", "-s", "team", "x", "cmd"}, 2, "", `unknown scope "team"`},
		{[]string{"mcp", "add-json", "bad", `{"type":"carrier-pigeon"}`}, 1, "", `server "bad"`},
		{[]string{"mcp", "get", "files"}, 0, "Scope: local (" + claudeJSON + ")\n  Type: stdio\n  Command: npx -y @modelcontextprotocol/server-filesystem /tmp\n  Environment: TOKEN (values not shown)", ""},
		{[]string{"mcp", "get", "docs"}, 0, "Headers: Authorization (values not shown)", ""},
		{[]string{"mcp", "list"}, 0, "files  trusted", ""},
		{[]string{"mcp", "get", "nope"}, 1, "", `no MCP server "nope"`},
		{[]string{"mcp", "remove", "docs"}, 0, "Removed MCP server docs from user config", ""},
		{[]string{"mcp", "remove", "docs"}, 1, "", `no MCP server "docs"`},
	}
	for _, s := range steps {
		code, out, errOut := runEnvIn(t, ws, env, s.args...)
		if code != s.code || !strings.Contains(out, s.out) || !strings.Contains(errOut, s.err) {
			t.Errorf("atomic %s: code %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)",
				strings.Join(s.args, " "), code, s.code, out, s.out, errOut, s.err)
		}
	}
	code, out, _ := runEnvIn(t, ws, env, "mcp", "get", "files")
	if code != 0 || strings.Contains(out, "s3cret") {
		t.Errorf("get printed a secret value: %q", out)
	}

	var doc struct {
		NumStartups int `json:"numStartups"`
		MCPServers  map[string]json.RawMessage
		Projects    map[string]struct {
			AllowedTools []string                   `json:"allowedTools"`
			MCPServers   map[string]json.RawMessage `json:"mcpServers"`
		} `json:"projects"`
	}
	data, err := os.ReadFile(claudeJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.NumStartups != 7 || len(doc.Projects["/elsewhere"].AllowedTools) != 1 {
		t.Errorf("Claude Code's own state was not kept: %s", data)
	}
	if _, ok := doc.Projects[ws].MCPServers["files"]; !ok || len(doc.MCPServers) != 0 {
		t.Errorf("local server not under projects[%s], or the removed user server is still there: %s", ws, data)
	}
	if fi, _ := os.Stat(claudeJSON); fi.Mode().Perm() != 0o600 && fi.Mode().Perm() != 0o644 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".mcp.json")); !strings.Contains(string(b), `"db-server"`) {
		t.Errorf("project server not in .mcp.json: %s", b)
	}

	// A server in two scopes is removed only from the one named.
	if code, _, _ := runEnvIn(t, ws, env, "mcp", "add", "-s", "user", "files", "other-server"); code != 0 {
		t.Fatal("adding the same name at user scope failed")
	}
	if code, _, errOut := runEnvIn(t, ws, env, "mcp", "remove", "files"); code != 2 || !strings.Contains(errOut, "local and user") {
		t.Errorf("remove of a name in two scopes: code %d, %s", code, errOut)
	}
	if code, _, _ := runEnvIn(t, ws, env, "mcp", "remove", "-s", "user", "files"); code != 0 {
		t.Error("remove -s user failed")
	}
	if code, out, _ := runEnvIn(t, ws, env, "mcp", "get", "files"); code != 0 || !strings.Contains(out, "Scope: local") || strings.Contains(out, "Scope: user") {
		t.Errorf("after remove -s user: %q", out)
	}
}

func TestAtomicMcpAddKeepsASymlinkedClaudeJSONALink(t *testing.T) {
	home, ws, dots := t.TempDir(), t.TempDir(), t.TempDir()
	target := filepath.Join(dots, "claude.json")
	writeFile(t, target, `{"numStartups": 1}`)
	link := filepath.Join(home, ".claude.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runEnvIn(t, ws, mcpEnv(home), "mcp", "add", "-s", "user", "files", "my-server"); code != 0 {
		t.Fatalf("add: %d %s", code, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("~/.claude.json is no longer a symlink: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), `"my-server"`) || !strings.Contains(string(b), `"numStartups"`) {
		t.Errorf("the linked file lacks the server or lost its content: %s", b)
	}
}
