package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/tools"
)

// Git runs what is in a repository's git directory: hooks, and the
// programs config names (core.fsmonitor, diff.external, filters…). A write
// there in acceptEdits followed by `git status` under bash(git:*) ran a
// command nobody allowed (found by the adversarial e2e family 1h).
func TestTheFileToolsNeverChangeAGitDirectoryWithoutAsking(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755)
	os.MkdirAll(filepath.Join(root, "real"), 0o755)
	os.Symlink(filepath.Join(root, ".git"), filepath.Join(root, "gitlink"))
	for _, mode := range []Mode{AcceptEdits, BypassPermissions} {
		g, _ := settingsGate(t, root, mode, nil, nil)
		for _, subject := range []string{
			".git/config", ".git/hooks/pre-commit", filepath.Join(root, ".git", "config"), "x/../.git/info/attributes",
			"sub/.git/config", "vendor/lib/.git/hooks/post-checkout", "gitlink/config", ".GIT/config",
		} {
			for _, tool := range []string{"write", "edit", "multi_edit"} {
				d := g.Decide(context.Background(), Request{Tool: tool, Kind: tools.Edit, Subject: subject})
				if d.Allow || !strings.Contains(d.Reason, "git directory") {
					t.Errorf("%s %s in %s: allow %v (%s), want asked (denied headless)", tool, subject, mode, d.Allow, d.Reason)
				}
			}
		}
		for _, subject := range []string{".gitignore", ".gitattributes", ".github/workflows/ci.yml", "src/git/x.go", "real/x"} {
			if d := g.Decide(context.Background(), Request{Tool: "write", Kind: tools.Edit, Subject: subject}); !d.Allow {
				t.Errorf("write %s in %s was refused: %s", subject, mode, d.Reason)
			}
		}
	}
	a := &answerer{ans: AllowOnce}
	g, _ := settingsGate(t, root, AcceptEdits, a, nil)
	if d := g.Decide(context.Background(), Request{Tool: "edit", Kind: tools.Edit, Subject: ".git/config"}); !d.Allow || a.calls != 1 {
		t.Errorf("edit of .git/config in acceptEdits with someone to ask: allow %v after %d prompts, want allowed after 1", d.Allow, a.calls)
	}
}
