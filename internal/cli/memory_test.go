package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestRunExpandsACustomCommandAndGivesTheLeadTheMemory(t *testing.T) {
	srv := testkit.Loopback(t, `
rules:
  - {name: answer, respond: {text: "fixed"}}
`)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		".git/HEAD":               "ref: refs/heads/main\n",
		"AGENTS.md":               "Always run gofmt.\n@missing.md\n",
		".atomic/commands/fix.md": "---\ndescription: Fix an issue\nargument-hint: [issue]\n---\nFix issue $1 and add a test.",
	})
	var out, errOut bytes.Buffer
	env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": filepath.Join(dir, "state"),
		"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL()}
	code := Run(context.Background(), []string{"run", "--no-session-persistence", "--model", "test-model", "-p", "/fix 42"}, IOStreams{
		In: strings.NewReader(""), Out: &out, Err: &errOut, Getenv: func(k string) string { return env[k] }, Dir: dir,
	})
	if code != 0 || strings.TrimSpace(out.String()) != "fixed" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	wantWarn := "atomic: warning: memory: " + filepath.Join(dir, "AGENTS.md") + ":2: import @" + filepath.Join(dir, "missing.md") + ": no such file\n"
	if errOut.String() != wantWarn {
		t.Errorf("stderr %q, want the one warning %q", errOut.String(), wantWarn)
	}
	log := srv.Log()
	if len(log) != 1 {
		t.Fatalf("%d model requests, want 1", len(log))
	}
	if got := log[0].LastUserText(); got != "Fix issue 42 and add a test." {
		t.Errorf("the lead was sent %q, want the command's expansion", got)
	}
	if !strings.Contains(log[0].System, "Contents of "+filepath.Join(dir, "AGENTS.md")+" (project instructions):\n\nAlways run gofmt.") {
		t.Errorf("the lead's system prompt lacks the memory:\n%s", log[0].System)
	}
}
