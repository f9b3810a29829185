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

	"github.com/atomic-agent/atomic/internal/testkit"
)

// The TUI with the lead in the real Codex CLI (--backend codex): its
// spawned agents appear in the agents tree as native ones do, and a
// child's command that needs approval is answered in Atomic's prompt.

// startCodexTUI runs `atomic --backend codex` against the loopback at
// url, with extra arguments args, and waits for the input; mark tags every
// process it starts (they
// inherit the environment), so the test can find the Codex processes.
func startCodexTUI(t *testing.T, url, mark string, args ...string) *screen {
	t.Helper()
	return startBackendTUI(t, "codex", testkit.CodexCLI(t), url, mark, args...)
}

// waitLong polls the screen like waitFor, for up to d: Codex starts a
// Node process and its children answer after seconds, not milliseconds.
func (s *screen) waitLong(d time.Duration, want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		scr := s.capture()
		if showsAll(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited %v for %q; the screen shows:\n%s", d, want, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// quitAndCheckNoCLILeft quits with Ctrl+D on the empty input and
// checks that no process carrying mark (the CLI and its children)
// outlives atomic.
func quitAndCheckNoCLILeft(t *testing.T, s *screen, mark string) {
	t.Helper()
	if len(markedProcesses(mark)) == 0 {
		t.Fatal("no process carries the mark while the TUI runs: the process check would prove nothing")
	}
	s.keys("C-d")
	s.waitUntil("atomic to exit", func(string) bool { return s.exited() })
	var left []string
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if left = markedProcesses(mark); len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("processes outlived atomic: %q", left)
	}
}

// markedProcesses are the live processes whose environment holds
// ATOMIC_TEST_MARK=mark.
func markedProcesses(mark string) []string {
	var found []string
	dir, _ := os.ReadDir("/proc")
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !alive(pid) {
			continue
		}
		environ, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		for _, kv := range strings.Split(string(environ), "\x00") {
			if kv == "ATOMIC_TEST_MARK="+mark {
				cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
				found = append(found, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
				break
			}
		}
	}
	return found
}

// testMark is a mark unique to this test process and test.
func testMark(t *testing.T) string {
	return strconv.Itoa(os.Getpid()) + "-" + unsafeChars.ReplaceAllString(t.Name(), "-")
}

func TestCodexSubagentsCommandIsApprovedInAtomicsPromptAndRuns(t *testing.T) {
	srv := startServer(t, testkit.CodexPerm)
	mark := testMark(t)
	s := startCodexTUI(t, srv.URL(), mark)
	s.typeLine("CAP-PERM: have a sub-agent write a file.")
	s.waitLong(45*time.Second, "Approval needed · general-purpose-1 (codex) wants to run:", "touch perm.txt", "Allow once (y)")
	work, err := os.Readlink("/proc/" + strconv.Itoa(s.pid) + "/cwd") // the workspace
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(work, "perm.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("perm.txt before the answer: %v, want it absent", err)
	}
	s.keys("y")
	s.waitLong(45*time.Second, "1 general-purpose agent finished", "The sub-agent is done.")
	if scr := s.capture(); strings.Contains(scr, "Approval needed") {
		t.Errorf("the prompt stayed up after the answer:\n%s", scr)
	}
	if _, err := os.Stat(filepath.Join(work, "perm.txt")); err != nil {
		t.Errorf("perm.txt after the approval: %v, want the command run in the workspace", err)
	}
	quitAndCheckNoCLILeft(t, s, mark)
}

func TestCodexFanOutShowsRunningThenFinishedHeader(t *testing.T) {
	srv := startServer(t, testkit.CodexFanOut)
	mark := testMark(t)
	s := startCodexTUI(t, srv.URL(), mark)
	s.typeLine("CAP-FG3: start three sub-agents in parallel, then sum up.")
	// The children answer after 2 s: the running header is up meanwhile.
	s.waitLong(45*time.Second, "Running 3 general-purpose agents…")
	s.waitLong(45*time.Second, "all done.")
	// Codex answers each wait_agent at once with an agent that already
	// finished, so a lead whose children end apart (a busy machine) waits
	// several times and the tree can scroll off into the history.
	scr := s.waitForHistory("3 general-purpose agents finished")
	if strings.Contains(scr, "Running 3") {
		t.Errorf("the running header stayed up after the agents finished:\n%s", scr)
	}
	quitAndCheckNoCLILeft(t, s, mark)
}
