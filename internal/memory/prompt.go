package memory

import (
	"fmt"
	"strings"
)

// Prompt is the memory block of a system prompt ("" when nothing loaded):
// each file under a heading naming its path and kind, nearest first, and
// a word on which wins.
func (m *Memory) Prompt() string {
	if m == nil || len(m.Files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Project memory\n\nThe user and the project left these instructions (AGENTS.md, CLAUDE.md and the files they import). Follow them. They are listed from the working directory up to the repository root, then the user's own; a file nearer the working directory is more specific, and wins where they disagree.")
	for _, f := range m.Files {
		what := string(f.Kind)
		if f.ImportedBy != "" {
			what = "imported by " + f.ImportedBy
		}
		if f.Paths != "" {
			what += ", for files matching " + f.Paths
		}
		fmt.Fprintf(&b, "\n\nContents of %s (%s):\n\n%s", f.Path, what, strings.TrimSpace(f.Content))
	}
	return b.String()
}

// Summary is what /memory shows: each file with its size, lines and
// importer, then the problems.
func (m *Memory) Summary() string {
	var b strings.Builder
	if m == nil || len(m.Files) == 0 {
		b.WriteString("No memory files loaded (AGENTS.md, CLAUDE.md, .claude/CLAUDE.md, .claude/rules/*.md, CLAUDE.local.md from here up to the repository root; ~/.claude/CLAUDE.md, ~/.claude/rules/*.md; ~/.config/atomic/AGENTS.md).")
	} else {
		b.WriteString("Memory files, in prompt order:")
		for _, f := range m.Files {
			lines := "lines"
			if f.Lines() == 1 {
				lines = "line"
			}
			fmt.Fprintf(&b, "\n  %s · %s · %d %s", f.Path, size(len(f.Content)), f.Lines(), lines)
			if f.ImportedBy != "" {
				fmt.Fprintf(&b, " · imported by %s:%d", f.ImportedBy, f.Line)
			} else {
				fmt.Fprintf(&b, " · %s", f.Kind)
			}
			if f.Paths != "" {
				fmt.Fprintf(&b, " · for %s", f.Paths)
			}
		}
	}
	if m != nil && len(m.Problems) > 0 {
		b.WriteString("\nWarnings:")
		for _, p := range m.Problems {
			fmt.Fprintf(&b, "\n  %v", p)
		}
	}
	return b.String()
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}
