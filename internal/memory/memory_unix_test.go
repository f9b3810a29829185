//go:build unix

package memory

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestLoadSkipsAFileThatIsNotARegularFileWithoutBlocking(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"AGENTS.md": "fine"})
	if err := syscall.Mkfifo(filepath.Join(root, "CLAUDE.md"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan *Memory, 1)
	go func() { done <- Load(Places{Dir: root}) }()
	select {
	case m := <-done:
		if len(m.Files) != 1 || len(m.Problems) != 1 || m.Problems[0].Error() != filepath.Join(root, "CLAUDE.md")+": not a regular file" {
			t.Errorf("files %d, problems %q; want AGENTS.md loaded and the pipe reported", len(m.Files), m.Problems)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load blocked on a named pipe called CLAUDE.md")
	}
}
