package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunReportsEachMCPConfigProblemOnceAndStillAnswers(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config", "atomic")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(user, "mcp.json"), `{"mcpServers":{"gone":{"command":"/nonexistent/mcp-server"}}}`)
	bad := filepath.Join(dir, "bad.json")
	write(bad, "{\n\"mcpServers\": {\n}}}")
	cases := []struct {
		name  string
		env   map[string]string
		args  []string
		want  []string
		avoid []string
	}{
		{"user file, bad file, inline JSON, bad timeout",
			map[string]string{"MCP_TIMEOUT": "soon"},
			[]string{"--mcp-config", bad, "--mcp-config", `{"mcpServers":{"x":{"type":"ftp"}}}`},
			[]string{
				"atomic: warning: mcp config " + bad + ": line 3",
				`atomic: warning: mcp config --mcp-config: mcpServers.x: unknown type "ftp"`,
				`atomic: warning: MCP_TIMEOUT: want a number of milliseconds above 0, got "soon"`,
				"atomic: warning: mcp server gone: ",
			}, nil},
		{"strict reads only the flag's files",
			nil,
			[]string{"--strict-mcp-config", "--mcp-config", `{"mcpServers":{"y":{"type":"ftp"}}}`},
			[]string{`atomic: warning: mcp config --mcp-config: mcpServers.y: unknown type "ftp"`},
			[]string{"mcp server gone"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": filepath.Join(dir, "state")}
			for k, v := range c.env {
				env[k] = v
			}
			code, out, errOut := runEnvIn(t, dir, env, append([]string{"run", "--demo", "-p", "hello", "--no-session-persistence"}, c.args...)...)
			if code != 0 || strings.TrimSpace(out) == "" {
				t.Fatalf("code %d, out %q, stderr:\n%s", code, out, errOut)
			}
			for _, w := range c.want {
				if strings.Count(errOut, w) != 1 {
					t.Errorf("stderr has %q %d times, want once:\n%s", w, strings.Count(errOut, w), errOut)
				}
			}
			for _, a := range c.avoid {
				if strings.Contains(errOut, a) {
					t.Errorf("stderr has %q:\n%s", a, errOut)
				}
			}
		})
	}
}
