//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The / menu and @ completion through the real binary: typing shows the
// matches under the input, Tab completes the pick.
func TestSlashMenuAndAtFileCompletionInTheRealChat(t *testing.T) {
	srv := startServer(t, scenario)
	tmp := t.TempDir()
	for name, body := range map[string]string{"work/internal/auth/login.go": "package auth\n", "work/.gitignore": "dist/\n", "work/dist/login.js": "x\n"} {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := launchIn(t, tmp, []string{"ANTHROPIC_API_KEY=test-key"},
		"--provider", "anthropic", "--base-url", shellQuote(srv.URL()), "--model", "test-model")
	s.waitFor("Ask anything")

	s.keys("-l", "/mo")
	s.waitFor("› /model", "show the model, or switch to another")
	s.keys("Tab")
	s.waitUntil("/model completed", func(scr string) bool {
		return strings.Contains(scr, "❯ /model") && !strings.Contains(scr, "› /model")
	})
	s.keys("C-c") // clears the input
	s.waitUntil("the input cleared", func(scr string) bool { return strings.Contains(scr, "Ask anything") })

	s.keys("-l", "explain @logi")
	scr := s.waitFor("› @internal/auth/login.go")
	if strings.Contains(scr, "dist/login.js") {
		t.Errorf("a gitignored file is offered:\n%s", scr)
	}
	s.keys("Tab")
	s.waitFor("❯ explain @internal/auth/login.go")
}
