package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/event"
)

// diffLines bounds the diff /diff shows in the chat.
const diffLines = 200

// diffTimeout bounds git's run for /diff, /review.
const diffTimeout = 10 * time.Second

// diffMsg is git's diff of the working tree, made off the UI's loop.
type diffMsg struct {
	review bool // for /review: the diff becomes the prompt
	diff   string
	err    error
}

// editTools are the tools whose file_path an agent changes.
func editTool(name string) bool {
	switch strings.ToLower(name) {
	case "edit", "write", "multi_edit", "multiedit", "notebook_edit", "notebookedit":
		return true
	}
	return false
}

// noteChange records which agent's edit tool touched which file, for /diff.
func (m *Model) noteChange(e event.Event) {
	if e.Type != event.ToolStart || isLead(e) {
		return
	}
	d, ok := event.Payload[event.ToolStartData](e.Data)
	if !ok || !editTool(d.Name) {
		return
	}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if json.Unmarshal(d.Input, &in) != nil {
		return
	}
	path := firstNonEmpty(in.FilePath, in.NotebookPath)
	if path == "" {
		return
	}
	if m.changed == nil {
		m.changed = map[string][]string{}
	}
	if !slices.Contains(m.changed[e.AgentID], path) {
		m.changed[e.AgentID] = append(m.changed[e.AgentID], path)
	}
}

// diffCommand shows git's diff of the working tree (for /review: asks the
// lead to review it).
func (m *Model) diffCommand(review bool) {
	dir := m.info().Folder
	m.later = func() tea.Msg {
		d, err := gitDiff(dir)
		return diffMsg{review, d, err}
	}
}

// gitDiff is the working tree's changes against HEAD, untracked files
// named.
func gitDiff(dir string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), diffTimeout)
	defer cancel()
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
				return "", fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(string(ee.Stderr)))
			}
			return "", fmt.Errorf("git %s: %w", args[0], err)
		}
		return string(out), nil
	}
	diff, err := run("diff", "HEAD", "--no-color", "--no-ext-diff")
	if err != nil {
		if diff, err = run("diff", "--no-color", "--no-ext-diff"); err != nil { // no commit yet
			return "", err
		}
	}
	untracked, err := run("ls-files", "--others", "--exclude-standard")
	if err != nil {
		return "", err
	}
	for _, f := range strings.Fields(untracked) {
		diff += "\nuntracked: " + f
	}
	return strings.TrimSpace(diff), nil
}

func (m *Model) diffReady(msg diffMsg) {
	switch {
	case msg.err != nil:
		m.note(noteError, "Could not read the diff: "+msg.err.Error())
	case msg.diff == "":
		m.note(noteInfo, "No changes in the working tree.")
	case msg.review:
		m.send("/review", reviewPrompt(msg.diff))
	default:
		m.note(noteInfo, m.diffText(msg.diff))
	}
}

// diffText is the diff as /diff shows it: the files sub-agents changed,
// then the diff, cut at diffLines.
func (m *Model) diffText(diff string) string {
	var b strings.Builder
	if len(m.changed) > 0 {
		b.WriteString("Files sub-agents changed:")
		agents := make([]string, 0, len(m.changed))
		for a := range m.changed {
			agents = append(agents, a)
		}
		slices.Sort(agents)
		for _, a := range agents {
			fmt.Fprintf(&b, "\n  %s: %s", a, strings.Join(m.changed[a], ", "))
		}
		b.WriteString("\n")
	}
	lines := strings.Split(diff, "\n")
	if len(lines) > diffLines {
		lines = append(lines[:diffLines], fmt.Sprintf("… %d more lines (git diff shows them all)", len(lines)-diffLines))
	}
	b.WriteString("Diff of the working tree:\n")
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}
