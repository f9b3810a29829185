//go:build unix

package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// The TUI with its lead in an external CLI (atomic --backend name): what
// the Codex, OpenCode and Copilot terminal tests share.

// startBackendTUI runs `atomic --backend name` with the CLI at bin against
// the loopback at url (spoken as OpenAI Chat Completions under /v1) and
// waits for the input; mark tags every process it starts (they inherit
// the environment), so the test can find the CLI's processes.
func startBackendTUI(t *testing.T, name, bin, url, mark string, args ...string) *screen {
	t.Helper()
	s := launch(t, []string{"OPENAI_API_KEY=test-key", "ATOMIC_TEST_MARK=" + mark},
		append([]string{"--backend", name, "--backend-bin", shellQuote(bin),
			"--base-url", shellQuote(url + "/v1"), "--model", "gpt-test"}, args...)...)
	s.waitFor("Ask anything")
	return s
}

// workspace is the folder atomic runs in (its working directory).
func (s *screen) workspace() string {
	s.t.Helper()
	work, err := os.Readlink("/proc/" + strconv.Itoa(s.pid) + "/cwd")
	if err != nil {
		s.t.Fatal(err)
	}
	return work
}

// cliWait bounds each wait on an external CLI: they start Node or Bun
// processes whose sub-agents answer after seconds on a loaded machine.
const cliWait = 60 * time.Second

// permLead is an external CLI as the TUI's lead, in its CAP-PERM scenario
// (testkit's *Perm: a sub-agent asks to run `touch perm.txt`, then
// answers "done PERM"; the lead then says "The sub-agent is done.").
type permLead struct {
	backend  string                  // --backend
	bin      func(testing.TB) string // testkit's finder: skips without the CLI
	perm     string                  // the CAP-PERM scenario
	who      string                  // the approval's label: the sub-agent and its backend
	finished string                  // the tree's header once the sub-agent ended
}

// startPerm serves lead's CAP-PERM scenario, starts the TUI on it and asks
// for the sub-agent; it returns once the approval prompt (naming the
// sub-agent and its backend) and the sub-agent's waiting row are up.
func startPerm(t *testing.T, lead permLead) (*screen, *loopback.Server, string) {
	t.Helper()
	srv := startServer(t, lead.perm)
	mark := testMark(t)
	s := startBackendTUI(t, lead.backend, lead.bin(t), srv.URL(), mark)
	s.typeLine("CAP-PERM: have a sub-agent write a file.")
	s.waitLong(cliWait, "Approval needed · "+lead.who+" wants to run:", "touch perm.txt", "Allow once (y)",
		`╰ Waiting for approval: bash "touch perm.txt"`)
	if _, err := os.Stat(filepath.Join(s.workspace(), "perm.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("perm.txt before the answer: %v, want it absent", err)
	}
	return s, srv, mark
}

// checkPermAnswered answers the approval with key (y allows once, n
// denies) and checks that the sub-agent and the lead finish, the tree says
// so, the command ran only if allowed, the sub-agent's model read its
// output or the denial, and no CLI process outlives atomic.
func checkPermAnswered(t *testing.T, lead permLead, key string) {
	t.Helper()
	s, srv, mark := startPerm(t, lead)
	s.keys(key)
	// The lead's turn has ended when the status bar offers ctrl+o again
	// instead of "esc to interrupt".
	scr := s.waitLong(cliWait, lead.finished, "╰ Done", "The sub-agent is done.", "ctrl+o expand · /help")
	if strings.Contains(scr, "Approval needed") {
		t.Errorf("the prompt stayed up after the answer:\n%s", scr)
	}
	allowed := key == "y"
	_, err := os.Stat(filepath.Join(s.workspace(), "perm.txt"))
	switch {
	case allowed && err != nil:
		t.Errorf("perm.txt after the approval: %v, want the command run in the workspace", err)
	case !allowed && !errors.Is(err, os.ErrNotExist):
		t.Errorf("perm.txt after the denial: %v, want the command never run", err)
	}
	final := loopback.ByRule(srv.Log(), "sub-perm-final")
	if len(final) != 1 {
		t.Fatalf("sub-perm-final answered %d times, want once: the sub-agent's model never read the command's result", len(final))
	}
	var result []string
	for _, r := range final[0].LastToolResults() {
		result = append(result, r.Content)
	}
	got, denial := strings.Join(result, "\n"), `the user declined bash "touch perm.txt"`
	if strings.Contains(got, denial) == allowed {
		t.Errorf("the sub-agent's model read %q; allowed %v, want the denial (%s) only if denied", got, allowed, denial)
	}
	quitAndCheckNoCLILeft(t, s, mark)
}

// checkPermInterrupted presses Ctrl+C while the approval waits: the prompt
// is withdrawn, the sub-agent's row says Interrupted, the lead's turn ends,
// the command never runs and no CLI process outlives atomic.
func checkPermInterrupted(t *testing.T, lead permLead) {
	t.Helper()
	s, _, mark := startPerm(t, lead)
	s.keys("C-c")
	scr := s.waitLong(cliWait, "╰ Interrupted", "ctrl+o expand · /help")
	if strings.Contains(scr, "Approval needed") {
		t.Errorf("the prompt stayed up after the interrupt:\n%s", scr)
	}
	if _, err := os.Stat(filepath.Join(s.workspace(), "perm.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("perm.txt after the interrupt: %v, want the command never run", err)
	}
	quitAndCheckNoCLILeft(t, s, mark)
}
