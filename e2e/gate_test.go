package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The lines of issue 20 §1 ran a command with no flags at all: bash
// evaluates the array subscript inside arithmetic, where the gate saw no
// command. Through the real binary and the loopback model, headless, in
// default and plan mode, they are denied, the files are not made, and
// the model is told which flag would allow them.
func TestArithmeticSubscriptsThatRunCommandsAreDeniedHeadlessWithNoFlags(t *testing.T) {
	lines := []struct{ command, made string }{
		{`[[ 'a[$(touch pwned)]' -eq 0 ]]`, "pwned"},
		{`let 'a[$(touch pwned2)]'`, "pwned2"},
	}
	for _, mode := range []struct {
		name string
		args []string
		want string
	}{
		{"default", nil, "--allowed-tools bash or --permission-mode bypassPermissions"},
		{"plan", []string{"--permission-mode", "plan"}, "not allowed in plan mode"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			var commands, descriptions []string
			for _, l := range lines {
				commands = append(commands, l.command)
			}
			srv := bashCallsServer(t, commands, descriptions)
			ws := workspace(t, nil)
			r := atomic(t, srv, "anthropic", ws, append([]string{"-p", "probe the gate"}, mode.args...)...)
			if r.code != 0 {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			log := srv.Log()
			if len(log) != 2 {
				t.Fatalf("%d model requests, want 2", len(log))
			}
			results := log[1].LastToolResults()
			if len(results) != len(lines) {
				t.Fatalf("%d tool results, want %d", len(results), len(lines))
			}
			for i, l := range lines {
				res := results[i]
				if !res.IsError || !strings.Contains(res.Content, "permission denied") || !strings.Contains(res.Content, mode.want) {
					t.Errorf("%s: result (error %v) does not deny naming %q:\n%s", l.command, res.IsError, mode.want, res.Content)
				}
				if _, err := os.Stat(filepath.Join(ws, l.made)); err == nil {
					t.Errorf("%s ran: %s exists", l.command, l.made)
				}
			}
		})
	}
}
