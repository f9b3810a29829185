package tools

// The diffs of edit and multi_edit are our own, not go-udiff's (issue 21
// asked for the library where it does the job; it was tried, commit
// e050f25, and reverted): measured on this machine, go-udiff v0.4.1 added
// 63,522 bytes to the binary, made the edit preview of a 2,000-line file
// slower (2.0 -> 2.8 ms, 822 KB -> 1.25 MB: it diffs whole texts where
// we diff the replaced spans), and wrote wrong new-file line numbers in
// every hunk header after the first (golang/go#81453), which needed our
// own hunk counting anyway.

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// lineChange is one run of replaced lines: old lines [oldStart,
// oldStart+len(oldLines)) (0-based) became newLines.
type lineChange struct {
	oldStart int
	oldLines []string
	newLines []string
}

// Diff display limits.
const (
	diffContext  = 3
	diffMaxLines = 400
)

// splitLines splits s after each newline; a final line without one is
// kept. Lines keep their terminators so texts compare exactly.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// editChanges returns the line changes made by replacing old with repl at
// the byte offsets of content (ascending, not overlapping). Matches on the
// same or adjacent lines form one change, and lines a change leaves as
// they were at its edges are not counted as changed.
func editChanges(content, old, repl string, offsets []int) []lineChange {
	if len(offsets) == 0 {
		return nil
	}
	starts := []int{0} // byte offset where each line starts
	for i := 0; i < len(content); i++ {
		if content[i] == '\n' && i+1 < len(content) {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int {
		return sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	}
	lineEnd := func(l int) int {
		if l+1 < len(starts) {
			return starts[l+1]
		}
		return len(content)
	}
	var changes []lineChange
	for i := 0; i < len(offsets); {
		first := lineOf(offsets[i])
		last := lineOf(offsets[i] + max(len(old), 1) - 1)
		j := i + 1
		for j < len(offsets) && lineOf(offsets[j]) <= last+1 {
			last = max(last, lineOf(offsets[j]+max(len(old), 1)-1))
			j++
		}
		from, to := starts[first], lineEnd(last)
		var b strings.Builder
		pos := from
		for _, off := range offsets[i:j] {
			b.WriteString(content[pos:off])
			b.WriteString(repl)
			pos = off + len(old)
		}
		b.WriteString(content[pos:to])
		c := lineChange{oldStart: first, oldLines: splitLines(content[from:to]), newLines: splitLines(b.String())}
		changes = append(changes, trimChange(c))
		i = j
	}
	return changes
}

// trimChange moves lines equal at both ends of a change out of it.
func trimChange(c lineChange) lineChange {
	for len(c.oldLines) > 0 && len(c.newLines) > 0 && c.oldLines[0] == c.newLines[0] {
		c.oldLines, c.newLines = c.oldLines[1:], c.newLines[1:]
		c.oldStart++
	}
	for len(c.oldLines) > 0 && len(c.newLines) > 0 && c.oldLines[len(c.oldLines)-1] == c.newLines[len(c.newLines)-1] {
		c.oldLines, c.newLines = c.oldLines[:len(c.oldLines)-1], c.newLines[:len(c.newLines)-1]
	}
	return c
}

// formatDiff renders changes to a file whose old lines are oldLines as a
// unified diff with a few lines of context, cut after diffMaxLines lines.
// oldName is "/dev/null" for a created file.
func formatDiff(oldName, newName string, oldLines []string, changes []lineChange) string {
	var out []string
	out = append(out, "--- "+oldName, "+++ "+newName)
	delta := 0 // line shift of the new file so far
	for i := 0; i < len(changes); {
		// Group changes whose context would overlap into one hunk.
		j := i + 1
		for j < len(changes) && changes[j].oldStart-(changes[j-1].oldStart+len(changes[j-1].oldLines)) <= 2*diffContext {
			j++
		}
		from := max(0, changes[i].oldStart-diffContext)
		last := changes[j-1]
		to := min(len(oldLines), last.oldStart+len(last.oldLines)+diffContext)
		var body []string
		pos := from
		hunkDelta := 0
		for _, c := range changes[i:j] {
			for ; pos < c.oldStart; pos++ {
				body = append(body, " "+showLine(oldLines[pos]))
			}
			for _, l := range c.oldLines {
				body = append(body, "-"+showLine(l))
			}
			for _, l := range c.newLines {
				body = append(body, "+"+showLine(l))
			}
			pos += len(c.oldLines)
			hunkDelta += len(c.newLines) - len(c.oldLines)
		}
		for ; pos < to; pos++ {
			body = append(body, " "+showLine(oldLines[pos]))
		}
		oldLen := to - from
		newLen := oldLen + hunkDelta
		out = append(out, fmt.Sprintf("@@ -%s +%s @@", hunkRange(from, oldLen), hunkRange(from+delta, newLen)))
		out = append(out, body...)
		delta += hunkDelta
		i = j
	}
	if len(out) > diffMaxLines {
		more := len(out) - diffMaxLines
		out = append(out[:diffMaxLines], fmt.Sprintf("… diff cut: %d more lines", more))
	}
	return strings.Join(out, "\n")
}

// hunkRange formats a hunk's start and length; an empty range names the
// line before it, as diff does.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func showLine(l string) string {
	return cutLine(strings.TrimRight(l, "\r\n"), 500, len(strings.TrimRight(l, "\r\n")))
}

// lineDiff returns the changes that turn the lines a into b, found with
// Myers' algorithm after trimming the lines both share at their ends, so
// edits far apart in a large file cost little. multi_edit uses it: its
// edits apply one after another, so no single replacement describes them.
func lineDiff(a, b []string) []lineChange {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	x, y := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops := myers(x, y)
	// Group the operations, in order, into runs of replaced lines.
	var changes []lineChange
	for _, o := range ops {
		if n := len(changes); n > 0 && changes[n-1].oldStart+len(changes[n-1].oldLines) == o.at {
			c := &changes[n-1]
			if o.del {
				c.oldLines = append(c.oldLines, x[o.at])
			} else {
				c.newLines = append(c.newLines, y[o.line])
			}
			continue
		}
		c := lineChange{oldStart: o.at}
		if o.del {
			c.oldLines = []string{x[o.at]}
		} else {
			c.newLines = []string{y[o.line]}
		}
		changes = append(changes, c)
	}
	for i := range changes {
		changes[i].oldStart += pre
	}
	return changes
}

// diffOp deletes x[at], or inserts y[line] before x[at].
type diffOp struct {
	del  bool
	at   int
	line int
}

// maxDiffEdits bounds the search (its memory grows with the square of
// the differences); beyond it the whole differing region is shown replaced.
const maxDiffEdits = 1000

// replaceAllLines deletes n lines and inserts m.
func replaceAllLines(n, m int) []diffOp {
	ops := make([]diffOp, 0, n+m)
	for i := range n {
		ops = append(ops, diffOp{del: true, at: i})
	}
	for j := range m {
		ops = append(ops, diffOp{at: n, line: j})
	}
	return ops
}

// myers returns the shortest edit script from x to y, in order.
func myers(x, y []string) []diffOp {
	n, m := len(x), len(y)
	if n == 0 && m == 0 {
		return nil
	}
	off := n + m + 1
	v := make([]int, 2*off+1) // v[off+k]: furthest i on diagonal k = i-j
	var trace [][]int         // trace[d]: v before step d
search:
	for d := 0; d <= n+m; d++ {
		if d > maxDiffEdits {
			return replaceAllLines(n, m)
		}
		trace = append(trace, slices.Clone(v))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				i = v[off+k+1] // down: insert
			} else {
				i = v[off+k-1] + 1 // right: delete
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
			}
			v[off+k] = i
			if i >= n && j >= m {
				break search
			}
		}
	}
	var ops []diffOp
	i, j := n, m
	for d := len(trace) - 1; d > 0; d-- {
		pv := trace[d]
		k := i - j
		pk := k - 1
		if k == -d || k != d && pv[off+k-1] < pv[off+k+1] {
			pk = k + 1
		}
		pi := pv[off+pk]
		pj := pi - pk
		for i > pi && j > pj {
			i, j = i-1, j-1
		}
		if i == pi {
			ops = append(ops, diffOp{at: pi, line: pj})
		} else {
			ops = append(ops, diffOp{del: true, at: pi})
		}
		i, j = pi, pj
	}
	slices.Reverse(ops)
	return ops
}
