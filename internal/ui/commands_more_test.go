package ui

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/mcp"
)

func usageDelta(agent string, in, out int64, cost float64) event.Event {
	return ev(event.UsageUpdate, at(1), agent, "", event.UsageUpdateData{Usage: event.Usage{InputTokens: in, OutputTokens: out, CostUSD: cost}, Delta: true})
}

func TestCostSumsTheSessionsUsagePerAgentType(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 30)
	feedEvents(m,
		taskStart(at(0), "c1", "explore", "Look", ""),
		subStart(at(0), "explore-1", "c1", "explore", "Look", false),
		taskStart(at(0), "c2", "explore", "Look more", ""),
		subStart(at(0), "explore-2", "c2", "explore", "Look more", false),
		taskStart(at(0), "c3", "general-purpose", "Build", ""),
		subStart(at(0), "general-purpose-1", "c3", "general-purpose", "Build", false),
		usageDelta(event.LeadID, 10_000, 500, 0.05),
		usageDelta("explore-1", 2_000, 100, 0.01),
		usageDelta("explore-2", 3_000, 200, 0.02),
		usageDelta("general-purpose-1", 1_000, 50, 0.005),
	)
	userAsk(m, "/cost")
	f := frame(m)
	for _, want := range []string{
		"Session cost: $0.0850 · 16.9k tokens (↑16.0k ↓850)",
		"lead               $0.0500 · 10.5k tokens (↑10.0k ↓500)",
		"explore ×2         $0.0300 · 5.3k tokens (↑5.0k ↓300)",
		"general-purpose    $0.0050 · 1.1k tokens (↑1.0k ↓50)",
	} {
		if !strings.Contains(f, want) {
			t.Errorf("/cost lacks %q:\n%s", want, f)
		}
	}
}

func TestStatusNamesWhatTheSessionRunsOn(t *testing.T) {
	m, b, _ := newTestModel(t, 100, 30)
	b.mcp = []mcp.Status{{Name: "github", State: "ready"}}
	m.cfg.Info = func() SessionInfo {
		return SessionInfo{SessionID: "atomic-1", Folder: "/work/p", Provider: "anthropic (ANTHROPIC_API_KEY)", Backend: "native",
			Permission: "default", Sandbox: "landlock", Store: "not saved: database is locked"}
	}
	userAsk(m, "/status")
	golden(t, "status_command", frame(m))
}

func TestExportWritesTheConversationAsMarkdown(t *testing.T) {
	dir := t.TempDir()
	m, _, _ := newTestModel(t, 100, 30)
	m.cfg.Info = func() SessionInfo { return SessionInfo{SessionID: "atomic-7", Folder: dir} }
	userAsk(m, "how big is the repo?")
	feedEvents(m, leadText(at(1), "It has **three** packages."))
	userAsk(m, "/export")
	data, err := os.ReadFile(filepath.Join(dir, "atomic-atomic-7.md"))
	if err != nil {
		t.Fatalf("/export wrote nothing: %v\n%s", err, frame(m))
	}
	want := "# Atomic conversation\n\nSession atomic-7 · " + dir + "\n\n## You\n\nhow big is the repo?\n\n## Atomic\n\nIt has **three** packages.\n"
	if string(data) != want {
		t.Errorf("export:\n%s\nwant:\n%s", data, want)
	}
	userAsk(m, "/export "+filepath.Join(dir, "missing", "x.md"))
	if !strings.Contains(frame(m), "Could not export:") {
		t.Errorf("a failed export is not said:\n%s", frame(m))
	}
}

// gitRepo is a repository with one commit and a change to it.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	writeFile(t, dir, "a.go", "package a\n")
	run("add", ".")
	run("commit", "-qm", "first")
	writeFile(t, dir, "a.go", "package a\n\nconst X = 1\n")
	writeFile(t, dir, "new.txt", "new\n")
	return dir
}

func TestDiffShowsTheWorkingTreesChangesAndWhichSubagentChangedWhat(t *testing.T) {
	dir := gitRepo(t)
	m, _, _ := newTestModel(t, 100, 40)
	m.cfg.Info = func() SessionInfo { return SessionInfo{Folder: dir} }
	in, _ := json.Marshal(map[string]string{"file_path": "a.go", "old_string": "", "new_string": "const X = 1"})
	feedEvents(m,
		taskStart(at(0), "c1", "general-purpose", "Add X", ""),
		subStart(at(0), "general-purpose-1", "c1", "general-purpose", "Add X", false),
		ev(event.ToolStart, at(1), "general-purpose-1", "e1", event.ToolStartData{Name: "edit", Input: in}),
	)
	runLater(t, m, ask(m, "/diff"))
	f := frame(m)
	for _, want := range []string{"Files sub-agents changed:", "general-purpose-1: a.go", "+const X = 1", "untracked: new.txt"} {
		if !strings.Contains(f, want) {
			t.Errorf("/diff lacks %q:\n%s", want, f)
		}
	}
}

func TestReviewSendsTheDiffToTheLeadAskingForReviewerSubagents(t *testing.T) {
	dir := gitRepo(t)
	m, b, _ := newTestModel(t, 100, 30)
	m.cfg.Info = func() SessionInfo { return SessionInfo{Folder: dir} }
	runLater(t, m, ask(m, "/review"))
	if len(b.submitted) != 1 {
		t.Fatalf("submitted %d prompts", len(b.submitted))
	}
	p := b.submitted[0]
	for _, want := range []string{"task tool", "in parallel", "+const X = 1", "untracked: new.txt", "Do not change any file"} {
		if !strings.Contains(p, want) {
			t.Errorf("the review prompt lacks %q:\n%s", want, p)
		}
	}
	clean := t.TempDir()
	if out, err := exec.Command("git", "-C", clean, "init", "-q").CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	m.cfg.Info = func() SessionInfo { return SessionInfo{Folder: clean} }
	runLater(t, m, ask(m, "/review"))
	if len(b.submitted) != 1 || !strings.Contains(frame(m), "No changes in the working tree.") {
		t.Errorf("a clean tree was sent for review (%d prompts):\n%s", len(b.submitted), frame(m))
	}
}

func TestInitAsksTheLeadToWriteAgentsMDFromExploreAgentsReports(t *testing.T) {
	m, b, _ := newTestModel(t, 100, 30)
	userAsk(m, "/init")
	if len(b.submitted) != 1 || !strings.Contains(b.submitted[0], "AGENTS.md") || !strings.Contains(b.submitted[0], "explore agents in parallel with the task tool") {
		t.Fatalf("submitted %q", b.submitted)
	}
	if !strings.Contains(frame(m), "❯ /init") {
		t.Errorf("the transcript does not show what the user typed:\n%s", frame(m))
	}
}

func TestHelpListsTheNewCommandsAndExit(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 60)
	userAsk(m, "/help")
	f := frame(m)
	for _, want := range []string{"/cost", "/status", "/diff", "/review", "/init", "/export [file]", "/quit, /exit"} {
		if !strings.Contains(f, want) {
			t.Errorf("/help lacks %q", want)
		}
	}
}
