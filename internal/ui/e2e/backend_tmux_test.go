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
func startBackendTUI(t *testing.T, name, bin, url, mark string) *screen {
	t.Helper()
	s := launch(t, []string{"OPENAI_API_KEY=test-key", "ATOMIC_TEST_MARK=" + mark},
		"--backend", name, "--backend-bin", shellQuote(bin),
		"--base-url", shellQuote(url+"/v1"), "--model", "gpt-test")
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

// permOutcome is what answering a CAP-PERM approval led to.
type permOutcome struct {
	ran    bool   // perm.txt exists in the workspace
	result string // the command's tool result, as the sub-agent's model read it
}

// answerPermApproval drives a CAP-PERM scenario (a sub-agent asks to run
// `touch perm.txt`) in the TUI: the prompt names the sub-agent as who
// (its name and backend), perm.txt is absent until the answer, key
// answers it, and the lead and its sub-agent finish with finished on
// screen.
func answerPermApproval(t *testing.T, s *screen, srv *loopback.Server, who, key string, finished ...string) permOutcome {
	t.Helper()
	s.typeLine("CAP-PERM: have a sub-agent write a file.")
	s.waitLong(cliWait, "Approval needed · "+who+" wants to run:", "touch perm.txt", "Allow once (y)",
		"╰ Waiting for approval: ")
	file := filepath.Join(s.workspace(), "perm.txt")
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("perm.txt before the answer: %v, want it absent", err)
	}
	s.keys(key)
	// The lead's turn has ended when the status bar offers ctrl+o again
	// instead of "esc to interrupt".
	scr := s.waitLong(cliWait, append(finished, "ctrl+o expand · /help")...)
	if strings.Contains(scr, "Approval needed") {
		t.Errorf("the prompt stayed up after the answer:\n%s", scr)
	}
	if !strings.Contains(scr, "╰ Done") {
		t.Errorf("the sub-agent's row does not say Done:\n%s", scr)
	}
	_, err := os.Stat(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	final := loopback.ByRule(srv.Log(), "sub-perm-final")
	if len(final) != 1 {
		t.Fatalf("sub-perm-final answered %d times, want once: the sub-agent's model never read the command's result", len(final))
	}
	var result []string
	for _, r := range final[0].LastToolResults() {
		result = append(result, r.Content)
	}
	return permOutcome{ran: err == nil, result: strings.Join(result, "\n")}
}

// interruptPermApproval drives a CAP-PERM scenario to its approval prompt
// (naming who), then presses Ctrl+C: the prompt is withdrawn, the
// sub-agent's row says Interrupted, the lead's turn ends and the command
// never runs.
func interruptPermApproval(t *testing.T, s *screen, who string) {
	t.Helper()
	s.typeLine("CAP-PERM: have a sub-agent write a file.")
	s.waitLong(cliWait, "Approval needed · "+who+" wants to run:", "touch perm.txt")
	s.keys("C-c")
	scr := s.waitLong(cliWait, "╰ Interrupted", "ctrl+o expand · /help")
	if strings.Contains(scr, "Approval needed") {
		t.Errorf("the prompt stayed up after the interrupt:\n%s", scr)
	}
	if _, err := os.Stat(filepath.Join(s.workspace(), "perm.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("perm.txt after the interrupt: %v, want the command never run", err)
	}
}
