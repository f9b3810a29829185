package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLsListsOneDirectory(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".gitignore":    "*.tmp\nnode_modules/\n",
		".git/HEAD":     "",
		"b.go":          "",
		"a.go":          "",
		"x.tmp":         "",
		"sub/c.go":      "",
		"node_modules/": "",
	})
	if err := os.Symlink(filepath.Join(ws.Root, "sub"), filepath.Join(ws.Root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	ls := NewLs(ws)
	want := ws.Root + "/ (5 entries)\n  .gitignore\n  a.go\n  b.go\n  linkdir/\n  sub/\n" +
		"[3 entries hidden by .gitignore or .git; set include_ignored to list them]"
	if got := mustSucceed(t, ls, map[string]any{}); got != want {
		t.Fatalf("ls =\n%s\nwant\n%s", got, want)
	}
	all := mustSucceed(t, ls, map[string]any{"include_ignored": true})
	assertContains(t, all, "(8 entries)", "  .git/", "  node_modules/", "  x.tmp")
	if got := mustSucceed(t, ls, map[string]any{"path": "sub"}); got != "sub/ (1 entry)\n  c.go" {
		t.Fatalf("ls sub = %q", got)
	}
	assertContains(t, mustFail(t, ls, map[string]any{"path": "a.go"}), "is a file", "use read")
	assertContains(t, mustFail(t, ls, map[string]any{"path": "missing"}), "does not exist")
	assertContains(t, mustFail(t, ls, map[string]any{"path": "/"}), "outside the workspace")
}
