package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sandboxCheck is one bash call the model makes and what must come back.
type sandboxCheck struct {
	name, command string
	ok            bool
	// line is in the result of a refused call: Atomic's note on the
	// sandbox.
	line string
}

// runSandboxed runs the real binary with args; the loopback model calls
// bash once per check, all at once, and the test reads what each call
// returned to the model.
func runSandboxed(t *testing.T, checks []sandboxCheck, prepare func(home string), args ...string) {
	t.Helper()
	var commands, descriptions []string
	for _, c := range checks {
		commands = append(commands, c.command)
		descriptions = append(descriptions, c.name)
	}
	srv := bashCallsServer(t, commands, descriptions)
	ws := workspace(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", ws, append([]string{"-p", "try the sandbox", "--permission-mode", "bypassPermissions"}, args...)...)
	for _, kv := range cmd.Env {
		if h, ok := strings.CutPrefix(kv, "HOME="); ok {
			prepare(h)
		}
	}
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "sandbox") {
		t.Errorf("stderr speaks of the sandbox on a kernel that has one: %s", r.stderr)
	}
	log := srv.Log()
	if len(log) != 2 {
		t.Fatalf("%d model requests, want 2", len(log))
	}
	results := log[1].LastToolResults()
	if len(results) != len(checks) {
		t.Fatalf("%d tool results, want %d", len(results), len(checks))
	}
	for i, c := range checks {
		res := results[i]
		if res.IsError == c.ok {
			t.Errorf("%s (%s): error %v, want success %v:\n%s", c.name, c.command, res.IsError, c.ok, res.Content)
		}
		if c.line != "" && !strings.Contains(res.Content, c.line) {
			t.Errorf("%s: result lacks %q:\n%s", c.name, c.line, res.Content)
		}
		if c.ok && strings.Contains(res.Content, "atomic: the sandbox") {
			t.Errorf("%s: a command that succeeded claims the sandbox:\n%s", c.name, res.Content)
		}
	}
}

func TestTheSandboxConfinesTheModelsBashCommandsThroughTheRealBinary(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "hello from loopback") }))
	defer web.Close()
	outside := t.TempDir()
	home := func(h string) {
		os.MkdirAll(filepath.Join(h, ".ssh"), 0o700)
		os.WriteFile(filepath.Join(h, ".ssh", "id_x"), []byte("PRIVATE\n"), 0o600)
		os.WriteFile(filepath.Join(h, ".bashrc"), []byte("# rc\n"), 0o644)
	}
	const blocked = "atomic: the sandbox (workspace-write) blocked this: "
	tmpOutside := fmt.Sprintf("/tmp/atomic-e2e-outside-%d", time.Now().UnixNano())
	runSandboxed(t, []sandboxCheck{
		{name: "write the workspace", command: "echo ok > made.txt && cat made.txt", ok: true},
		{name: "write /tmp outside the sandbox temp", command: "touch " + tmpOutside, line: blocked + "writes outside the workspace"},
		{name: "write a dotfile", command: "echo x >> ~/.bashrc", line: blocked},
		{name: "setsid grandchild writes outside", command: "setsid -w bash -c 'echo x > " + outside + "/daemon'", line: blocked},
		{name: "read a secret store", command: "cat ~/.ssh/id_x", line: blocked + "commands may not read the secret store"},
		{name: "curl loopback", command: "curl -sS -m 5 " + web.URL, line: blocked + "commands have no network access; --allow-network"},
	}, home)
	for _, p := range []string{tmpOutside, filepath.Join(outside, "daemon")} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("%s was written", p)
		}
	}

	t.Run("allow-network", func(t *testing.T) {
		runSandboxed(t, []sandboxCheck{
			{name: "curl loopback", command: "curl -sS -m 5 " + web.URL, ok: true},
			{name: "still no writes outside", command: "touch " + tmpOutside, line: blocked},
		}, home, "--allow-network")
	})
	t.Run("read-only", func(t *testing.T) {
		runSandboxed(t, []sandboxCheck{
			{name: "write the workspace", command: "echo x > ro.txt", line: "atomic: the sandbox (read-only) blocked this"},
			{name: "read the workspace", command: "ls", ok: true},
		}, home, "--sandbox", "read-only")
	})
	t.Run("off", func(t *testing.T) {
		runSandboxed(t, []sandboxCheck{
			{name: "read the fake secret", command: "cat ~/.ssh/id_x", ok: true},
		}, home, "--sandbox", "off")
	})
}
