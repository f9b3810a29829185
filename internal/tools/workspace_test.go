package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveKeepsPathsInsideTheWorkspace(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"src/a.go": "package a", "docs/": ""})
	if err := os.Symlink(filepath.Join(ws.Root, "docs"), filepath.Join(ws.Root, "link-in")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"src/a.go", filepath.Join(ws.Root, "src/a.go")},
		{"./src/../src/a.go", filepath.Join(ws.Root, "src/a.go")},
		{filepath.Join(ws.Root, "new/file.txt"), filepath.Join(ws.Root, "new/file.txt")},
		{".", ws.Root},
		{"link-in/x.md", filepath.Join(ws.Root, "link-in/x.md")},
	}
	for _, tt := range tests {
		got, err := ws.Resolve(tt.in)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResolveRefusesPathsOutsideTheWorkspace(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t, map[string]string{"a.txt": "a"})
	links := map[string]string{
		"escape-dir":  outside,
		"escape-file": filepath.Join(outside, "secret"),
		"dangling":    filepath.Join(outside, "not-yet"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws.Root, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, path string
		want       []string
	}{
		{"absolute", "/etc/passwd", []string{"path /etc/passwd is outside the workspace " + ws.Root}},
		{"dot-dot", "../x", []string{"outside the workspace"}},
		{"dot-dot inside a path", "a/../../x", []string{"outside the workspace"}},
		{"symlinked directory", "escape-dir/secret", []string{"resolves through a symlink to " + filepath.Join(outside, "secret"), "outside the workspace"}},
		{"symlinked file", "escape-file", []string{"resolves through a symlink", "outside the workspace"}},
		{"dangling symlink a write would follow", "dangling", []string{"resolves through a symlink", "outside the workspace"}},
		{"new file below a symlink", "escape-dir/new/deeper.txt", []string{"outside the workspace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ws.Resolve(tt.path)
			if err == nil {
				t.Fatalf("Resolve(%q) succeeded, want it refused", tt.path)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestResolveAllowsExtraRootsAndAllowOutside(t *testing.T) {
	extra := t.TempDir()
	ws := newWorkspace(t, nil)
	target := filepath.Join(extra, "f.txt")
	if _, err := ws.Resolve(target); err == nil {
		t.Fatal("path in another directory resolved without ExtraRoots")
	}
	ws.ExtraRoots = []string{extra}
	if got, err := ws.Resolve(target); err != nil || got != target {
		t.Fatalf("with ExtraRoots: Resolve = %q, %v", got, err)
	}
	_, err := ws.Resolve("/etc/passwd")
	if err == nil || !strings.Contains(err.Error(), extra) {
		t.Fatalf("error should name the extra root too: %v", err)
	}
	ws = Workspace{Root: ws.Root, AllowOutside: true}
	if got, err := ws.Resolve("/etc/passwd"); err != nil || got != "/etc/passwd" {
		t.Fatalf("with AllowOutside: Resolve = %q, %v", got, err)
	}
}

func TestResolveRefusesEmptyPathAndMissingRoot(t *testing.T) {
	if _, err := (Workspace{Root: t.TempDir()}).Resolve("  "); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty path: %v", err)
	}
	if _, err := (Workspace{}).Resolve("a"); err == nil || !strings.Contains(err.Error(), "no root") {
		t.Errorf("no root: %v", err)
	}
}
