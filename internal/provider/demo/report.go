package demo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/atomic-agent/atomic/internal/lazy"
	"github.com/atomic-agent/atomic/internal/provider"
)

// findings describes the real tool results of a conversation, one line per
// tool call: what an agent reports.
func findings(msgs []provider.Message) string {
	calls := map[string]provider.ToolCall{}
	for _, c := range allCalls(msgs, "") {
		calls[c.ID] = c
	}
	var b strings.Builder
	for _, m := range msgs {
		for _, pt := range m.Parts {
			r := pt.ToolResult
			if r == nil {
				continue
			}
			c := calls[r.ToolCallID]
			switch {
			case r.IsError:
				fmt.Fprintf(&b, "- %s failed: %s\n", c.Name, firstLine(r.Content, 200))
			case c.Name == "ls":
				entries := nonEmptyLines(r.Content)
				dirs := 0
				for _, e := range entries {
					if strings.HasSuffix(e, "/") {
						dirs++
					}
				}
				fmt.Fprintf(&b, "- The directory has %s (%s): %s\n", plural(len(entries), "entry", "entries"), plural(dirs, "folder", "folders"), preview(entries, 6))
			case c.Name == "glob":
				n, files := globCount(r.Content)
				fmt.Fprintf(&b, "- Files matching `%s`: %d (%s)\n", input[struct{ Pattern string }](c).Pattern, n, preview(files, 3))
			case c.Name == "grep":
				fmt.Fprintf(&b, "- grep `%s`: %s\n", input[struct{ Pattern string }](c).Pattern, grepSummary(r.Content))
			case c.Name == "read":
				fmt.Fprintf(&b, "- %s begins: %q\n", input[struct {
					FilePath string `json:"file_path"`
				}](c).FilePath, firstLine(stripLineNumbers(r.Content), 160))
			case c.Name == "bash":
				fmt.Fprintf(&b, "- `%s` printed: %s\n", input[struct{ Command string }](c).Command, firstLine(r.Content, 160))
			default:
				fmt.Fprintf(&b, "- %s returned: %s\n", c.Name, firstLine(r.Content, 160))
			}
		}
	}
	if b.Len() == 0 {
		b.WriteString("The demo model can only explore the current directory with real tools; configure a provider for real answers.\n")
	}
	return b.String()
}

var globTotal = lazy.Regexp{Expr: `of (?:more than )?(\d+) matches`}

// globCount is how many files a glob matched (its note gives the total
// when the list was cut) and the files it listed.
func globCount(out string) (int, []string) {
	if strings.HasPrefix(out, "No files found") {
		return 0, nil
	}
	files := nonEmptyLines(out)
	if m := globTotal.Get().FindStringSubmatch(out); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n, files
		}
	}
	return len(files), files
}

// grepSummary is grep's headline: "Found 3 files", "12 matching lines in
// 4 files" or its no-match note.
func grepSummary(out string) string {
	l := firstLine(out, 120)
	if strings.HasPrefix(l, "No matches") {
		return "no matches"
	}
	return l
}

// oneLine joins a report's lines with "; " and cuts it to about max bytes.
func oneLine(report string, max int) string {
	var parts []string
	for _, l := range nonEmptyLines(report) {
		parts = append(parts, strings.TrimSuffix(strings.TrimPrefix(l, "- "), "."))
	}
	s := strings.Join(parts, "; ")
	if len(s) > max {
		i := max
		for i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		s = s[:i] + "…"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
