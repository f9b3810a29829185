package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// exportWidth is the width tool lines and agents trees are drawn at in an
// export.
const exportWidth = 100

// exportCommand writes the conversation as Markdown to file (default
// atomic-<session>.md in the workspace folder).
func (m *Model) exportCommand(args []string) {
	info := m.info()
	name := "atomic-conversation.md"
	if info.SessionID != "" {
		name = "atomic-" + info.SessionID + ".md"
	}
	if len(args) > 0 {
		name = args[0]
	}
	if !filepath.IsAbs(name) && info.Folder != "" {
		name = filepath.Join(info.Folder, name)
	}
	if err := os.WriteFile(name, []byte(m.markdown(info)), 0o644); err != nil {
		m.note(noteError, fmt.Sprintf("Could not export: %v", err))
		return
	}
	m.note(noteSuccess, "Exported the conversation to "+name)
}

// markdown is the transcript as Markdown: prompts and answers as text,
// tool lines and agents trees as drawn (without colour), notes left out.
func (m *Model) markdown(info SessionInfo) string {
	var b strings.Builder
	b.WriteString("# Atomic conversation\n")
	if info.SessionID != "" {
		fmt.Fprintf(&b, "\nSession %s · %s\n", info.SessionID, info.Folder)
	}
	rc := &renderCtx{Width: exportWidth, Now: m.now, Theme: m.theme, md: &m.md, LeadBackend: m.leadBackend, Expanded: true}
	for _, e := range m.tr.entries {
		switch e := e.(type) {
		case *userEntry:
			fmt.Fprintf(&b, "\n## You\n\n%s\n", e.text)
		case *assistantEntry:
			text := e.text
			if e.interrupted {
				text += " (interrupted)"
			}
			fmt.Fprintf(&b, "\n## Atomic\n\n%s\n", text)
		case *noteEntry:
		default:
			lines := e.lines(rc)
			for i, l := range lines {
				lines[i] = strings.TrimRight(ansi.Strip(l), " ")
			}
			fmt.Fprintf(&b, "\n```\n%s\n```\n", strings.Join(lines, "\n"))
		}
	}
	return b.String()
}
