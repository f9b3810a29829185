package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// setMtimes gives files increasing modification times in the order given.
func setMtimes(t testing.TB, root string, paths ...string) {
	t.Helper()
	base := time.Now().Add(-time.Hour)
	for i, p := range paths {
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(root, p), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGlobFindsFilesNewestFirst(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".gitignore":        "dist/\n",
		"main.go":           "",
		"cmd/app/main.go":   "",
		"internal/x/x.go":   "",
		"internal/x/x.md":   "",
		"dist/bundle.go":    "",
		".git/hooks/pre.go": "",
		"web/app.tsx":       "",
		"web/util.ts":       "",
	})
	setMtimes(t, ws.Root, "internal/x/x.go", "main.go", "cmd/app/main.go", "web/util.ts", "web/app.tsx")
	glob := NewGlob(ws)
	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{"double star, newest first, ignores skipped", map[string]any{"pattern": "**/*.go"}, "cmd/app/main.go\nmain.go\ninternal/x/x.go"},
		{"one directory only", map[string]any{"pattern": "*.go"}, "main.go"},
		{"literal directory prefix", map[string]any{"pattern": "cmd/*/main.go"}, "cmd/app/main.go"},
		{"braces", map[string]any{"pattern": "**/*.{ts,tsx}"}, "web/app.tsx\nweb/util.ts"},
		{"search path", map[string]any{"pattern": "**/*", "path": "internal"}, "internal/x/x.md\ninternal/x/x.go"},
		{"absolute pattern", map[string]any{"pattern": filepath.Join(ws.Root, "web") + "/*.ts"}, "web/util.ts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustSucceed(t, glob, tt.in); got != tt.want {
				t.Fatalf("glob %v =\n%s\nwant\n%s", tt.in, got, tt.want)
			}
		})
	}
	assertContains(t, mustSucceed(t, glob, map[string]any{"pattern": "**/*.rs"}), `No files found matching "**/*.rs"`)
	assertContains(t, mustFail(t, glob, map[string]any{"pattern": "../**/*.go"}), "outside the workspace")
	assertContains(t, mustFail(t, glob, map[string]any{"pattern": "*", "path": "/etc"}), "outside the workspace")
	assertContains(t, mustFail(t, glob, map[string]any{"pattern": "*.{go"}), "invalid glob pattern", "unmatched {")
}

func TestGlobSkipsSymlinksLeavingTheWorkspace(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t, map[string]string{"real.go": ""})
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(ws.Root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws.Root, "real.go"), filepath.Join(ws.Root, "alias.go")); err != nil {
		t.Fatal(err)
	}
	got := mustSucceed(t, NewGlob(ws), map[string]any{"pattern": "*.go"})
	if strings.Contains(got, "link.go") || !strings.Contains(got, "alias.go") || !strings.Contains(got, "real.go") {
		t.Fatalf("glob = %q", got)
	}
}

func TestGlobCapsResults(t *testing.T) {
	files := map[string]string{}
	for i := range globMaxResults + 5 {
		files[fmt.Sprintf("d/f%04d.txt", i)] = ""
	}
	ws := newWorkspace(t, files)
	got := mustSucceed(t, NewGlob(ws), map[string]any{"pattern": "d/*.txt"})
	lines := strings.Split(got, "\n")
	if len(lines) != globMaxResults+1 {
		t.Fatalf("%d lines, want %d results and a note", len(lines), globMaxResults)
	}
	assertContains(t, lines[len(lines)-1], "showing the 1000 most recently modified of 1005 matches")
}

func TestGlobOfAMissingOrNonFolderPathIsAnError(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"file.go": "package f\n"})
	glob := NewGlob(ws)
	assertContains(t, mustFail(t, glob, map[string]any{"pattern": "*.go", "path": "nope"}), "nope does not exist")
	assertContains(t, mustFail(t, glob, map[string]any{"pattern": "*.go", "path": "file.go"}), "file.go is not a folder")
}
