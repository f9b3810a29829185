package cli

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/ui"
)

// heldRun is a run's answers from a real provider and fixed MCP states.
type heldRun struct {
	prov provider.Provider
	mcp  []mcp.Status
}

func (r heldRun) Model() string               { return "m" }
func (r heldRun) Provider() provider.Provider { return r.prov }
func (r heldRun) MCP() []mcp.Status           { return r.mcp }

// chatSession resolves args as the chat UI does, in dir with env, and
// returns what its slash commands ask.
func chatSession(t *testing.T, dir string, env map[string]string, args ...string) *tuiSession {
	t.Helper()
	fs := flag.NewFlagSet("atomic", flag.ContinueOnError)
	var c common
	c.register(fs)
	var errOut strings.Builder
	ios := IOStreams{In: strings.NewReader(""), Out: io.Discard, Err: &errOut, Getenv: func(k string) string { return env[k] }, Dir: dir}
	if code, ok := c.parse(fs, args, ios, usage); !ok {
		t.Fatalf("parse: exit %d: %s", code, errOut.String())
	}
	s, err := c.resolve(ios, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.sandbox.Close() })
	if err := c.buildProvider(ios, s); err != nil {
		t.Fatal(err)
	}
	return &tuiSession{c: &c, s: s, ios: ios, given: givenFlags(fs), stored: &storeState{}, run: heldRun{prov: s.prov}}
}

func chatEnv(t *testing.T, home string) map[string]string {
	return map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_STATE_HOME": filepath.Join(home, "state"),
		"ANTHROPIC_API_KEY": "k", "PATH": os.Getenv("PATH")}
}

func TestConfigAndPermissionsNameTheFlagOrFileEachCameFrom(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, "config", "atomic", "config.json")
	testkit.WriteFiles(t, home, map[string]string{"config/atomic/config.json": `{"max_depth": 2, "allowed_tools": ["read"], "sandbox": "off"}`})
	srv := testkit.Loopback(t, answerHi)
	sess := chatSession(t, t.TempDir(), chatEnv(t, home), "--provider", "anthropic", "--base-url", srv.URL(), "--model", "m", "--disallowed-tools", "bash(rm:*)")
	got := map[string]ui.Setting{}
	for _, r := range sess.Settings() {
		got[r.Name] = r
	}
	for _, want := range []ui.Setting{
		{Name: "config file", Value: cfg, From: "default location"},
		{Name: "model", Value: "m", From: "--model"},
		{Name: "max depth", Value: "2", From: cfg},
		{Name: "max sub-agents", Value: "5", From: "default"},
		{Name: "sandbox", Value: "off: commands run unconfined", From: cfg},
		{Name: "backend", Value: "native", From: "default"},
	} {
		if got[want.Name] != want {
			t.Errorf("/config %s = %+v; want %+v", want.Name, got[want.Name], want)
		}
	}
	_, rules := sess.Permissions()
	var lines []string
	for _, r := range rules {
		lines = append(lines, string(r.Kind)+" "+r.Rule+" · "+r.Source)
	}
	for _, want := range []string{"deny bash(rm:*) · --disallowed-tools", "allow read · " + cfg} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("/permissions lacks %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}

func TestResumeListsOnlyThisFoldersSavedSessions(t *testing.T) {
	dir, other, state := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{dir, dir, other} {
		if code, _, errOut := runIn(t, d, state, "run", "--demo", "-p", "hi from "+filepath.Base(d)); code != 0 {
			t.Fatalf("run in %s: exit %d: %s", d, code, errOut)
		}
	}
	env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": state}
	sess := chatSession(t, dir, env, "--demo")
	list, err := sess.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d sessions listed; want this folder's 2: %+v", len(list), list)
	}
	for _, s := range list {
		if !strings.Contains(s.Title, filepath.Base(dir)) {
			t.Errorf("another folder's session listed: %+v", s)
		}
	}
}

func TestAddDirRefusesAMissingFolderByNameAndOneAlreadyInTheWorkspace(t *testing.T) {
	dir, extra := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	sess := chatSession(t, dir, chatEnv(t, t.TempDir()), "--demo")
	if _, err := sess.AddDir("/nonexistent/lib"); err == nil || !strings.Contains(err.Error(), "/add-dir /nonexistent/lib: no such folder") {
		t.Errorf("a missing folder: %v", err)
	}
	if _, err := sess.AddDir("sub"); err == nil || !strings.Contains(err.Error(), "already in the workspace") {
		t.Errorf("a folder of the workspace: %v", err)
	}
	if got, err := sess.AddDir(extra); err != nil || got != extra {
		t.Errorf("a folder outside: %q, %v", got, err)
	}
}

func TestDoctorChecksTheProviderKeyStoreSandboxGitCLIsAndMCP(t *testing.T) {
	srv := testkit.Loopback(t, "models: [m, m2]\n"+answerHi)
	sess := chatSession(t, t.TempDir(), chatEnv(t, t.TempDir()), "--provider", "anthropic", "--base-url", srv.URL(), "--model", "m", "--sandbox", "off")
	sess.run = heldRun{prov: sess.s.prov, mcp: []mcp.Status{{Name: "github", State: mcp.Failed, Transport: "stdio", Err: "exec: gh-mcp: not found"}}}
	checks := map[string]ui.Check{}
	for _, c := range sess.Doctor(t.Context()) {
		checks[c.Name] = c
	}
	for name, ok := range map[string]bool{"provider reachable": true, "API key": true, "session store": true, "sandbox": true, "git": true, "MCP github": false} {
		if c, found := checks[name]; !found || c.OK != ok {
			t.Errorf("%s: %+v (found %v); want OK %v", name, c, found, ok)
		}
	}
	if d := checks["provider reachable"].Detail; d != "anthropic listed 2 models" {
		t.Errorf("provider: %q", d)
	}
	if c := checks["MCP github"]; !strings.Contains(c.Detail, "gh-mcp: not found") || c.Fix == "" {
		t.Errorf("a failed MCP server: %+v", c)
	}
	for _, cli := range []string{"claude-code CLI", "codex CLI", "opencode CLI", "copilot CLI"} {
		c, found := checks[cli]
		if !found || !c.Optional || !c.OK && !strings.Contains(c.Fix, "npm install -g") {
			t.Errorf("%s: %+v (found %v)", cli, c, found)
		}
	}

	blocked := chatEnv(t, t.TempDir())
	blocked["XDG_STATE_HOME"] = filepath.Join(t.TempDir(), "a-file")
	testkit.WriteFiles(t, filepath.Dir(blocked["XDG_STATE_HOME"]), map[string]string{"a-file": "not a folder"})
	if c := chatSession(t, t.TempDir(), blocked, "--demo").storeWritable(); c.OK || !strings.Contains(c.Detail, "a-file") {
		t.Errorf("a store under a file: %+v", c)
	}

	dead := chatSession(t, t.TempDir(), chatEnv(t, t.TempDir()), "--provider", "anthropic", "--base-url", "http://127.0.0.1:1", "--model", "m")
	if c := dead.reachable(context.Background()); c.OK || c.Fix == "" {
		t.Errorf("an unreachable provider: %+v", c)
	}
}
