//go:build unix

package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// toolchainRow is the toolchain agent's row; its last number is the
// elapsed seconds (after its context figure, when it has one).
var toolchainRow = regexp.MustCompile(`Check the toolchain · \d+ tool uses? · (?:[\d.]+k? ctx · |\d+% ctx · )?(\d+)s`)

func elapsed(scr string) int {
	m := toolchainRow.FindStringSubmatch(scr)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// The demo tour, typed as a newcomer would: the agents run live for
// seconds (the header says Running and their times tick), one asks for
// approval, the background one outlives the lead's answer and wakes it,
// and the tree ends finished.
func TestDemoTourShowsAgentsRunningLiveThenFinished(t *testing.T) {
	s := launch(t, nil, "--demo")
	s.waitFor("Ask anything", "atomic-demo")
	s.typeLine("explore this project with agents")

	first := s.waitUntil("the Running header with the toolchain agent's time", func(scr string) bool {
		return strings.Contains(scr, "● Running 4 agents… (ctrl+o to expand)") && elapsed(scr) >= 0
	})
	start := elapsed(first)
	s.waitUntil("the toolchain agent's time to tick while the header says Running", func(scr string) bool {
		return strings.Contains(scr, "● Running 4 agents…") && elapsed(scr) > start
	})

	s.waitFor("● Approval needed · general-purpose-1 wants to run:", "bash ls -la", "Allow once (y)")
	s.keys("y")

	// The lead answers while the background agent still works...
	s.waitFor("Meanwhile, in the background: Task general-purpose-2: running")
	// ...which then finishes, wakes the lead, and the tree is done (printed
	// into the scrollback above the lead's long answers).
	scr := s.waitForHistory("● 4 agents finished (ctrl+o to expand)", "that woke me up", "That completes the tour")
	if strings.Count(scr, "╰ Done") != 4 {
		t.Errorf("want 4 Done rows:\n%s", scr)
	}
	if strings.Index(scr, "Meanwhile, in the background") > strings.Index(scr, "that woke me up") {
		t.Errorf("the wake-up answer came before the lead's first answer:\n%s", scr)
	}
	if strings.Contains(scr, "● Running") || strings.Contains(scr, "Running…") { // not the test's folder name
		t.Errorf("something still says Running:\n%s", scr)
	}
}

// After the tour, another prompt gets its own answer: the menu.
func TestDemoAnswersASecondPromptWithTheMenu(t *testing.T) {
	s := launch(t, nil, "--demo")
	s.waitFor("Ask anything")
	s.typeLine("what is in this folder?")
	s.waitFor(`README.md begins: "# demo"`)
	s.typeLine("hello")
	s.waitFor("I only know a few scripts", "explore this project with agents", "show me a team")
}
