package remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// TestAWorkersGitRunsNoHookFilterOrFsmonitorPlantedInItsClone plants in a
// worker's clone what a task's commands could leave there (every hook a
// checkout, commit or ref update runs, core.fsmonitor, a filter driver
// named by .gitattributes, diff.external, a textconv, gpg signing) and
// runs each git the worker runs for a task: the commit check, the
// checkout with the lead's changes applied and committed, the agent's
// diff, and the removal. None of them may run.
func TestAWorkersGitRunsNoHookFilterOrFsmonitorPlantedInItsClone(t *testing.T) {
	ctx := context.Background()
	top := testkit.GitRepo(t, map[string]string{"a.txt": "one\n", ".gitattributes": "*.txt filter=evil diff=evil\n"})
	marker := filepath.Join(t.TempDir(), "ran")
	prog := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho \"$0 $*\" >> '"+marker+"'\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"post-checkout", "post-commit", "pre-commit", "commit-msg", "reference-transaction", "post-index-change"} {
		testkit.WriteFiles(t, top, map[string]string{".git/hooks/" + h: "#!/bin/sh\necho " + h + " >> '" + marker + "'\n"})
		if err := os.Chmod(filepath.Join(top, ".git", "hooks", h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range [][2]string{{"core.fsmonitor", prog}, {"filter.evil.clean", prog}, {"filter.evil.smudge", prog},
		{"diff.external", prog}, {"diff.evil.textconv", prog}, {"commit.gpgSign", "true"}, {"gpg.program", prog}} {
		testkit.Git(t, top, "config", kv[0], kv[1])
	}
	commit := testkit.Git(t, top, "rev-parse", "HEAD")

	w := &Worker{top: top, commits: map[string]bool{}}
	if err := w.hasCommit(ctx, commit); err != nil {
		t.Fatal(err)
	}
	patch := []byte("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+one, by the lead\n")
	var mu sync.Mutex
	c, err := newCheckout(ctx, &mu, top, checkoutPath(top, "lead-task-1"), commit, patch)
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFiles(t, c.path, map[string]string{"a.txt": "one, by the agent\n", "b.txt": "new\n"})
	diff, err := c.diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.remove()

	if b, err := os.ReadFile(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a program planted in the clone ran during the worker's git: %s", b)
	}
	if !strings.Contains(string(diff), "+one, by the agent") || !strings.Contains(string(diff), "+new") {
		t.Errorf("the agent's diff is wrong:\n%s", diff)
	}
}
