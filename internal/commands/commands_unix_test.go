//go:build unix

package commands

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestLoadSkipsACommandFileThatIsNotARegularFileWithoutBlocking(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{".claude/commands/ok.md": "fine"})
	pipe := filepath.Join(root, ".claude", "commands", "pipe.md")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	type result struct {
		s        *Set
		problems []error
	}
	done := make(chan result, 1)
	go func() { s, p := Load(Dirs(root, "", ""), nil); done <- result{s, p} }()
	select {
	case r := <-done:
		if len(r.s.All()) != 1 || len(r.problems) != 1 || r.problems[0].Error() != pipe+": not a regular file" {
			t.Errorf("commands %d, problems %q; want ok loaded and the pipe reported", len(r.s.All()), r.problems)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load blocked on a named pipe in .claude/commands")
	}
}
