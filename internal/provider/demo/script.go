package demo

import (
	"path"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/provider"
)

// pickFile chooses the most telling file from ls and glob output: a README
// first, then any Markdown file, then the first plain file listed; the
// shallowest wins, and files under testdata or fixtures folders (a test's
// copy of someone else's README) only when nothing else is listed.
func pickFile(results []string) string {
	var files []string
	for _, r := range results {
		for _, l := range nonEmptyLines(r) {
			if !strings.HasSuffix(l, "/") && !strings.Contains(l, " ") {
				files = append(files, l)
			}
		}
	}
	if len(files) == 0 {
		return ""
	}
	best, bestRank := "", [3]int{}
	for i, f := range files {
		rank := [3]int{fileKind(f), strings.Count(path.Clean(f), "/"), i}
		if best == "" || slices.Compare(rank[:], bestRank[:]) < 0 {
			best, bestRank = f, rank
		}
	}
	return best
}

// fileKind orders candidates: a README, a Markdown file, anything else,
// and each of those under a test-data folder after all of them.
func fileKind(f string) int {
	kind := 2
	switch base := strings.ToLower(path.Base(f)); {
	case strings.HasPrefix(base, "readme"):
		kind = 0
	case strings.HasSuffix(base, ".md"):
		kind = 1
	}
	for _, dir := range strings.Split(path.Dir(path.Clean(f)), "/") {
		if dir == "testdata" || dir == "fixtures" {
			return kind + 3
		}
	}
	return kind
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		// Skip the tools' headers and notes: "/dir/ (5 entries)", "[…]",
		// "No files found …".
		if l != "" && !strings.HasPrefix(l, "(") && !strings.HasPrefix(l, "…") && !strings.HasPrefix(l, "[") &&
			!strings.HasPrefix(l, "No ") && !strings.HasSuffix(l, "entries)") && !strings.HasSuffix(l, "entry)") {
			out = append(out, l)
		}
	}
	return out
}

func preview(items []string, n int) string {
	if len(items) == 0 {
		return "none"
	}
	if len(items) > n {
		return strings.Join(items[:n], ", ") + ", …"
	}
	return strings.Join(items, ", ")
}

func firstLine(s string, max int) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if len(l) > max {
			l = l[:max] + "…"
		}
		return l
	}
	return ""
}

// stripLineNumbers removes read's "   12\t" prefixes.
func stripLineNumbers(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if i := strings.IndexByte(l, '\t'); i >= 0 && strings.TrimSpace(l[:i]) != "" && strings.Trim(strings.TrimSpace(l[:i]), "0123456789") == "" {
			l = l[i+1:]
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

func splitWords(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\n' {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func approxTokens(req provider.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			n += len(p.Text)
			if p.ToolResult != nil {
				n += len(p.ToolResult.Content)
			}
			if p.ToolCall != nil {
				n += len(p.ToolCall.Input)
			}
		}
	}
	return n/4 + 1
}
