//go:build unix

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/store"
)

// A store that cannot be used is said in the chat's opening lines, not on
// a stderr the alternate screen hides until the chat ends.
func TestTheChatSaysInItsOpeningLinesThatACorruptStoreLeavesTheSessionUnsaved(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "home", "state", "atomic")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, store.FileName), bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
		t.Fatal(err)
	}
	s := launchIn(t, tmp, nil, "--demo")
	scr := s.waitFor("Ask anything", "this session is not saved")
	if strings.Index(scr, "this session is not saved") > strings.Index(scr, "Ask anything") {
		t.Errorf("the warning is not in the transcript above the input:\n%s", scr)
	}
}
