//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const answerOnce = `
rules:
  - name: answer
    respond: {text: "Reviewed."}
`

// commandFiles is a real-shaped .claude/commands folder: a command that
// runs a script its allowed-tools allow and inlines a file, one whose
// command nothing allows, and one that points outside the workspace.
var commandFiles = map[string]string{
	".claude/commands/plan-review.md": "---\ndescription: Review the plan\nallowed-tools: Bash(sh status.sh:*)\n---\n" +
		"## Context\n- Status: !`sh status.sh now`\n\nReview @notes/plan.md for $ARGUMENTS; ping @alice.\n",
	".claude/commands/ship.md": "---\ndescription: Ship it\n---\nState: !`sh status.sh`\nShip.\n",
	".claude/commands/leak.md": "Summarise @../outside.txt\n",
	"status.sh":                "echo status-from-script \"$1\"\n",
	"notes/plan.md":            "PLAN-FILE-CONTENT: migrate the store\n",
}

func TestACommandFileRunsItsAllowedCommandAndInlinesItsFile(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, answerOnce)
			ws := workspace(t, commandFiles)
			r := atomic(t, srv, prov, ws, "-p", "/plan-review the migration")
			if r.code != 0 {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			log := srv.Log()
			if len(log) != 1 {
				t.Fatalf("%d requests, want 1", len(log))
			}
			got := log[0].LastUserText()
			for _, want := range []string{"- Status: status-from-script now", "Review @notes/plan.md for the migration; ping @alice.",
				`<file path="notes/plan.md">`, "PLAN-FILE-CONTENT: migrate the store"} {
				if !strings.Contains(got, want) {
					t.Errorf("prompt lacks %q:\n%s", want, got)
				}
			}
			if strings.Contains(got, "!`") {
				t.Errorf("prompt still has the !`command`:\n%s", got)
			}
		})
	}
}

func TestACommandFilesCommandNothingAllowsIsDeniedHeadlessAndNothingIsSent(t *testing.T) {
	ws := workspace(t, commandFiles)
	if err := os.WriteFile(filepath.Join(filepath.Dir(ws), "outside.txt"), []byte("OUTSIDE-SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]string{
		"/ship": "/ship: !`sh status.sh`: permission denied",
		"/leak": "/leak: @../outside.txt: ",
	} {
		srv := server(t, answerOnce)
		r := atomic(t, srv, "anthropic", ws, "-p", cmd)
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: code %d, stderr %q; want 1 and %q", cmd, r.code, r.stderr, want)
		}
		if n := len(srv.Log()); n != 0 {
			t.Errorf("%s: %d model requests, want none", cmd, n)
		}
	}
}
