package tools

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestFileToolsMadeBeforeAFolderIsAddedUseItAfter(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "a\n"})
	ws.Added = &Roots{}
	extra := t.TempDir()
	writeTree(t, extra, map[string]string{"lib/old.go": "package lib\n"})
	set := Core(ws) // copies ws: the add below must reach these tools
	tool := func(name string) Tool {
		tl, ok := set.Get(name)
		if !ok {
			t.Fatalf("no %s tool", name)
		}
		return tl
	}
	newFile := filepath.Join(extra, "lib", "new.go")
	if msg := mustFail(t, tool("write"), map[string]any{"file_path": newFile, "content": "x"}); !strings.Contains(msg, "outside the workspace") {
		t.Fatalf("write before the add: %s", msg)
	}
	ws.Added.Add(extra)
	mustSucceed(t, tool("write"), map[string]any{"file_path": newFile, "content": "package lib\n// new\n"})
	if got := mustSucceed(t, tool("read"), map[string]any{"file_path": newFile}); !strings.Contains(got, "// new") {
		t.Fatalf("read after the add: %s", got)
	}
	mustSucceed(t, tool("edit"), map[string]any{"file_path": newFile, "old_string": "// new", "new_string": "// edited"})
	if got := mustSucceed(t, tool("read"), map[string]any{"file_path": newFile}); !strings.Contains(got, "// edited") {
		t.Fatalf("edit after the add did not land: %s", got)
	}
	if got := mustSucceed(t, tool("glob"), map[string]any{"pattern": "**/*.go", "path": extra}); !strings.Contains(got, "old.go") || !strings.Contains(got, "new.go") {
		t.Fatalf("glob after the add: %s", got)
	}
	if msg := mustFail(t, tool("read"), map[string]any{"file_path": "/etc/hostname"}); !strings.Contains(msg, extra) {
		t.Fatalf("the refusal should name the added folder among the roots: %s", msg)
	}
}

func TestRootsAreSafeToAddWhileToolsResolve(t *testing.T) {
	ws := newWorkspace(t, nil)
	ws.Added = &Roots{}
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()}
	var wg sync.WaitGroup
	for _, d := range dirs {
		wg.Go(func() { ws.Added.Add(d) })
		wg.Go(func() { _, _ = ws.Resolve(filepath.Join(d, "f")) })
	}
	wg.Wait()
	ws.Added.Add(dirs[0]) // once
	if got := ws.Extra(); len(got) != len(dirs) {
		t.Fatalf("Extra() = %v, want the %d added folders once each", got, len(dirs))
	}
}
