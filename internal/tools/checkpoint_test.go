package tools

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/checkpoint"
)

func TestWriteEditAndMultiEditSnapshotAFileBeforeTheirFirstChangeSoARewindRestoresIt(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "one two\n"})
	cps := checkpoint.New(0)
	ws.Checkpoint = cps.Save
	cps.Begin("prompt", time.Now(), 0, "")
	a := filepath.Join(ws.Root, "a.txt")
	mustSucceed(t, NewEdit(ws), map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "uno"})
	mustSucceed(t, NewMultiEdit(ws), map[string]any{"file_path": "a.txt", "edits": []map[string]any{{"old_string": "two", "new_string": "dos"}}})
	mustSucceed(t, NewWrite(ws), map[string]any{"file_path": "new/b.txt", "content": "b"})
	if s := readFile(t, a); s != "uno dos\n" {
		t.Fatalf("a.txt = %q before the rewind", s)
	}
	if got := cps.List()[0].Files; len(got) != 2 {
		t.Fatalf("checkpoint files = %v, want a.txt and new/b.txt", got)
	}
	if _, err := cps.RestoreCode(1); err != nil {
		t.Fatal(err)
	}
	if s := readFile(t, a); s != "one two\n" {
		t.Fatalf("a.txt = %q after the rewind", s)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "new/b.txt")); !os.IsNotExist(err) {
		t.Fatalf("new/b.txt still there after the rewind: %v", err)
	}
}
