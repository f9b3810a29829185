package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/config"
)

func mcpEnv(dir string) map[string]string {
	return map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": filepath.Join(dir, "state")}
}

func TestAtomicMcpListsTrustsAndUntrustsTheProjectsServers(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	env := mcpEnv(home)
	if err := os.MkdirAll(filepath.Join(home, "config", "atomic"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "config", "atomic", "mcp.json"), `{"mcpServers":{"mine":{"command":"my-server"}}}`)
	writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers":{"db":{"command":"db-server","args":["--port","5432"]},"web":{"type":"http","url":"https://x/mcp"}}}`)

	steps := []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"mcp"}, 0, "db  not approved\n    db-server --port 5432\n    from " + filepath.Join(ws, ".mcp.json"), ""},
		{[]string{"mcp", "list"}, 0, "mine  trusted (your own configuration)\n    my-server", ""},
		{[]string{"mcp", "trust"}, 2, "", "trust needs server names or --all"},
		{[]string{"mcp", "trust", "mine"}, 1, "", `no server "mine" in ` + filepath.Join(ws, ".mcp.json") + " (servers of your own files need no approval)"},
		{[]string{"mcp", "trust", "db"}, 0, "trusted db: db-server --port 5432 (from " + filepath.Join(ws, ".mcp.json") + ")", ""},
		{[]string{"mcp"}, 0, "db  approved\n", ""},
		{[]string{"mcp", "trust", "--all"}, 0, "trusted web: http https://x/mcp", ""},
		{[]string{"mcp", "untrust", "db"}, 0, "untrusted db", ""},
		{[]string{"mcp"}, 0, "db  not approved\n", ""},
		{[]string{"mcp", "untrust", "--all"}, 0, "untrusted web", ""},
		{[]string{"mcp", "forget", "db"}, 2, "", `unknown command "forget"`},
		{[]string{"mcp", "trust", "db", "--all"}, 2, "", "not both"},
	}
	for _, s := range steps {
		code, out, errOut := runEnvIn(t, ws, env, s.args...)
		if code != s.code || !strings.Contains(out, s.out) || !strings.Contains(errOut, s.err) {
			t.Errorf("atomic %s: code %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)",
				strings.Join(s.args, " "), code, s.code, out, s.out, errOut, s.err)
		}
	}
}

// A run in the TUI's place or headless: the held project server is named
// once, with the way to approve it, and --trust-project-mcp=NAME starts
// just that one.
func TestRunNamesTheHeldProjectServersOnceAndTheFlagStartsThem(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers":{"a":{"command":"sh","args":["-c","touch `+marker+`.a"]},"b":{"command":"sh","args":["-c","touch `+marker+`.b"]}}}`)
	code, out, errOut := runEnvIn(t, ws, mcpEnv(home), "run", "--demo", "-p", "hello", "--no-session-persistence")
	if code != 0 || out == "" {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	if n := strings.Count(errOut, "atomic: warning: mcp: not starting the project's MCP servers a, b from "+filepath.Join(ws, ".mcp.json")); n != 1 {
		t.Errorf("the held servers are named %d times, want once:\n%s", n, errOut)
	}
	for _, s := range []string{".a", ".b"} {
		if _, err := os.Stat(marker + s); err == nil {
			t.Errorf("server %s ran unapproved", s)
		}
	}
	code, _, errOut = runEnvIn(t, ws, mcpEnv(home), "run", "--demo", "-p", "hello", "--no-session-persistence", "--trust-project-mcp=b")
	if code != 0 || !strings.Contains(errOut, "MCP server a from") {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(marker + ".b"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("--trust-project-mcp=b did not start b")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(marker + ".a"); err == nil {
		t.Error("--trust-project-mcp=b started a too")
	}
}

func TestMCPToolTimeoutComesFromTheEnvironmentThenTheConfig(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	tests := []struct {
		env  string
		file config.File
		want time.Duration
		err  string
	}{
		{"", config.File{}, 10 * time.Minute, ""},
		{"", config.File{MCPToolSeconds: 90}, 90 * time.Second, ""},
		{"2500", config.File{MCPToolSeconds: 90}, 2500 * time.Millisecond, ""},
		{"soon", config.File{}, 0, `MCP_TOOL_TIMEOUT: want a number of milliseconds above 0, got "soon"`},
	}
	for _, tt := range tests {
		got, err := mcpToolTimeout(env(tt.env), tt.file)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && err.Error() != tt.err {
			t.Errorf("MCP_TOOL_TIMEOUT=%q, file %v: %v, %v; want %v, %q", tt.env, tt.file.MCPToolSeconds, got, err, tt.want, tt.err)
		}
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Run in the home folder, the approvals file and ~/.claude/settings.json
// are in the workspace, where the model can write them: neither approves
// a project server, and the warning says why.
func TestApprovalsTheModelCouldWriteDoNotCount(t *testing.T) {
	ws := t.TempDir() // the workspace is the home folder
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers":{"p":{"command":"sh","args":["-c","touch `+marker+`"]}}}`)
	if err := os.MkdirAll(filepath.Join(ws, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, ".claude", "settings.json"), `{"enableAllProjectMcpServers": true}`)
	env := map[string]string{"HOME": ws, "XDG_STATE_HOME": filepath.Join(t.TempDir(), "state")}
	code, _, errOut := runEnvIn(t, ws, env, "mcp", "trust", "p")
	if code != 0 || !strings.Contains(errOut, "is inside this workspace, where the model can write it") {
		t.Fatalf("trust: code %d, stderr %s", code, errOut)
	}
	code, _, errOut = runEnvIn(t, ws, env, "run", "--demo", "-p", "hello", "--no-session-persistence")
	if code != 0 {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"not starting the project's MCP server p",
		filepath.Join(ws, ".config", "atomic", "trusted-mcp.json") + " is inside the workspace",
		filepath.Join(ws, ".claude", "settings.json") + " is inside the workspace"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the server ran on approvals the model could have written")
	}
}
