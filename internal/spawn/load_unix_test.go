//go:build unix

package spawn

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestLoadSkipsAnAgentFileThatIsNotARegularFileWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.md"), []byte("---\nname: ok\ndescription: fine\n---\nbody"), 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "pipe.md")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	type result struct {
		r        *Registry
		problems []error
	}
	done := make(chan result, 1)
	go func() { r, p := LoadTypes([]string{dir}, nil); done <- result{r, p} }()
	select {
	case res := <-done:
		if _, found := res.r.Get("ok"); !found || len(res.problems) != 1 || res.problems[0].Error() != pipe+": not a regular file" {
			t.Errorf("ok loaded %v, problems %q; want ok loaded and the pipe reported", found, res.problems)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LoadTypes blocked on a named pipe in an agents folder")
	}
}
