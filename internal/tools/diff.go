package tools

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Diff display limits.
const (
	diffContext  = 3
	diffMaxLines = 400
)

// unifiedDiff shows the change from old to new as a unified diff with a
// few lines of context, cut after diffMaxLines lines; "" when they are
// equal. oldName is "/dev/null" for a created file. go-udiff finds the
// changed lines and groups them into hunks; the text is written here so
// that a long line is cut, a CR of a CR LF ending is not shown, and the
// whole is bounded, and the new file's line of each hunk is counted here:
// go-udiff v0.4.1 (as gopls, golang/go#81453) does not advance it over the
// equal lines between edits joined into one hunk, so every later hunk's
// header named a wrong line (TestUnifiedDiffAppliesToTheOldTextAndGivesTheNew).
func unifiedDiff(oldName, newName, old, new string) string {
	u, err := udiff.ToUnifiedDiff(oldName, newName, old, udiff.Lines(old, new), diffContext)
	if err != nil { // cannot happen: the edits are computed from old
		return fmt.Sprintf("(no diff: %v)", err)
	}
	out := []string{"--- " + oldName, "+++ " + newName}
	delta := 0 // lines the hunks so far added, less those they removed
	for _, h := range u.Hunks {
		var body []string
		oldLen, newLen := 0, 0
		for _, l := range h.Lines {
			mark := " "
			switch l.Kind {
			case udiff.Delete:
				mark = "-"
				oldLen++
			case udiff.Insert:
				mark = "+"
				newLen++
			default:
				oldLen++
				newLen++
			}
			body = append(body, mark+showLine(l.Content))
			if !strings.HasSuffix(l.Content, "\n") {
				body = append(body, `\ No newline at end of file`)
			}
		}
		out = append(out, fmt.Sprintf("@@ -%s +%s @@", hunkRange(h.FromLine, oldLen), hunkRange(h.FromLine+delta, newLen)))
		delta += newLen - oldLen
		out = append(out, body...)
	}
	if len(out) > diffMaxLines {
		more := len(out) - diffMaxLines
		out = append(out[:diffMaxLines], fmt.Sprintf("… diff cut: %d more lines", more))
	}
	return strings.Join(out, "\n")
}

// hunkRange formats a hunk's 1-based first line and length; an empty
// range names the line before it, as diff does.
func hunkRange(line, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", line-1)
	}
	return fmt.Sprintf("%d,%d", line, n)
}

func showLine(l string) string {
	return cutLine(strings.TrimRight(l, "\r\n"), 500, len(strings.TrimRight(l, "\r\n")))
}
