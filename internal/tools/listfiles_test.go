package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListFilesSkipsGitignoredFilesAndStopsAtTheLimit(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		".gitignore":     "build/\n*.log\n",
		"main.go":        "package main",
		"cmd/app/app.go": "package app",
		"build/out.bin":  "x",
		"debug.log":      "x",
		".git/HEAD":      "ref",
		"docs/README.md": "# docs",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := Workspace{Root: root}
	got, err := ListFiles(context.Background(), ws, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "cmd/app/app.go", "docs/README.md", "main.go"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	got, err = ListFiles(context.Background(), ws, 2)
	if err != nil || len(got) != 2 {
		t.Errorf("limit 2: %v, %v", got, err)
	}
}
