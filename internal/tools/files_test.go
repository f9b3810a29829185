package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// buffers are an editor's open files, by absolute path: what an ACP
// client's fs methods serve. Write-only editors (read false) answer
// ErrNoFiles to reads.
type buffers struct {
	mu    sync.Mutex
	text  map[string]string
	read  bool
	wrote []string
}

func (b *buffers) ReadTextFile(ctx context.Context, path string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.read {
		return "", ErrNoFiles
	}
	t, ok := b.text[path]
	if !ok {
		return "", os.ErrNotExist
	}
	return t, nil
}

func (b *buffers) WriteTextFile(ctx context.Context, path, content string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.text[path] = content
	b.wrote = append(b.wrote, path)
	return nil
}

func TestFileToolsReadAndWriteTheEditorsBuffersWhenTheWorkspaceHasFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		tool     func(Workspace) Tool
		input    map[string]any
		wantOut  string // in the tool's result
		wantText string // the buffer after the call
	}{
		{"read shows the unsaved buffer", NewRead, map[string]any{"file_path": "a.txt"}, "unsaved\n", "unsaved\n"},
		{"edit changes the buffer", NewEdit, map[string]any{"file_path": "a.txt", "old_string": "unsaved", "new_string": "edited"}, "Edited", "edited\n"},
		{"multi_edit changes the buffer", NewMultiEdit, map[string]any{"file_path": "a.txt",
			"edits": []map[string]any{{"old_string": "unsaved", "new_string": "one"}, {"old_string": "one", "new_string": "two"}}}, "Edited", "two\n"},
		{"write replaces the buffer", NewWrite, map[string]any{"file_path": "a.txt", "content": "written\n"}, "a.txt", "written\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &buffers{text: map[string]string{path: "unsaved\n"}, read: true}
			out := mustSucceed(t, tt.tool(Workspace{Root: dir, Files: b}), tt.input)
			if !strings.Contains(out, strings.TrimSpace(tt.wantOut)) {
				t.Errorf("result %q lacks %q", out, tt.wantOut)
			}
			if b.text[path] != tt.wantText {
				t.Errorf("buffer %q, want %q", b.text[path], tt.wantText)
			}
			if disk, _ := os.ReadFile(path); string(disk) != "on disk\n" {
				t.Errorf("disk changed to %q", disk)
			}
		})
	}
}

func TestFileToolsUseTheDiskForWhatTheEditorDoesNotOffer(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &buffers{text: map[string]string{}, read: false} // write-only editor
	ws := Workspace{Root: dir, Files: b}
	if out := mustSucceed(t, NewRead(ws), map[string]any{"file_path": "a.txt"}); !strings.Contains(out, "on disk") {
		t.Errorf("read %q, want the disk's text", out)
	}
	mustSucceed(t, NewEdit(ws), map[string]any{"file_path": "a.txt", "old_string": "on disk", "new_string": "edited"})
	if b.text[path] != "edited\n" {
		t.Errorf("the edit of the disk's text should be written to the editor: buffer %q", b.text[path])
	}
}

// The editor opens the paths it is sent by name itself: it is sent the
// symlink-free path Atomic checked, not the one the model gave, so a
// symlink on the way is not followed again on the editor's side.
func TestTheEditorIsSentTheCheckedPathWithoutSymlinks(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"src/a.txt": "on disk\n"})
	if err := os.Symlink("src", filepath.Join(ws.Root, "link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	rootReal, err := filepath.EvalSymlinks(ws.Root)
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(rootReal, "src", "a.txt")
	b := &buffers{text: map[string]string{real: "unsaved\n"}, read: true}
	ws.Files = b
	assertContains(t, mustSucceed(t, NewRead(ws), map[string]any{"file_path": "link/a.txt"}), "unsaved")
	mustSucceed(t, NewWrite(ws), map[string]any{"file_path": "link/a.txt", "content": "written\n"})
	if len(b.wrote) != 1 || b.wrote[0] != real {
		t.Fatalf("the editor was sent %v, want %s", b.wrote, real)
	}
}
