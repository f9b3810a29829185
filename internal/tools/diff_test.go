package tools

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

var hunkHeader = regexp.MustCompile(`^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$`)

// applyDiff applies a diff that unifiedDiff rendered to old (whose lines
// end in LF), checking each context and removed line against old and
// each hunk's counts, and returns the new text.
func applyDiff(t interface {
	Helper()
	Fatalf(string, ...any)
}, old, diff string) string {
	t.Helper()
	oldLines := strings.SplitAfter(old, "\n")
	if oldLines[len(oldLines)-1] == "" {
		oldLines = oldLines[:len(oldLines)-1]
	}
	lines := strings.Split(diff, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		t.Fatalf("no file header:\n%s", diff)
	}
	var out []string
	pos := 0 // next old line to copy
	for i := 2; i < len(lines); {
		m := hunkHeader.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("line %d is not a hunk header: %q\n%s", i, lines[i], diff)
		}
		from, _ := strconv.Atoi(m[1])
		oldN, _ := strconv.Atoi(m[2])
		to, _ := strconv.Atoi(m[3])
		newN, _ := strconv.Atoi(m[4])
		start := from - 1
		if oldN == 0 {
			start = from // an empty range names the line before
		}
		if start < pos {
			t.Fatalf("hunk %q overlaps the one before:\n%s", m[0], diff)
		}
		out = append(out, oldLines[pos:start]...)
		pos = start
		if want := len(out) + 1; newN > 0 && to != want || newN == 0 && to != want-1 {
			t.Fatalf("hunk %q starts at new line %d, want %d:\n%s", m[0], to, want, diff)
		}
		gotOld, gotNew := 0, 0
		prev := byte(0)
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "@@"); i++ {
			l := lines[i]
			if l == `\ No newline at end of file` {
				switch prev {
				case '-':
					if strings.HasSuffix(oldLines[pos-1], "\n") {
						t.Fatalf("no-newline marker after an old line that has one:\n%s", diff)
					}
				case '+', ' ':
					out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
				default:
					t.Fatalf("no-newline marker after %q:\n%s", prev, diff)
				}
				continue
			}
			prev = l[0]
			switch l[0] {
			case ' ', '-':
				if pos >= len(oldLines) || strings.TrimSuffix(oldLines[pos], "\n") != l[1:] {
					t.Fatalf("diff line %q is not old line %d:\n%s", l, pos+1, diff)
				}
				pos++
				gotOld++
				if l[0] == ' ' {
					out = append(out, l[1:]+"\n")
					gotNew++
				}
			case '+':
				out = append(out, l[1:]+"\n")
				gotNew++
			default:
				t.Fatalf("bad diff line %q:\n%s", l, diff)
			}
		}
		if gotOld != oldN || gotNew != newN {
			t.Fatalf("hunk %q holds %d old and %d new lines:\n%s", m[0], gotOld, gotNew, diff)
		}
	}
	return strings.Join(append(out, oldLines[pos:]...), "")
}

func TestUnifiedDiffAppliesToTheOldTextAndGivesTheNew(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// b is a with a few lines kept, changed, dropped or added, so
		// changes come both close together and far apart.
		var a, b strings.Builder
		n := rapid.IntRange(0, 80).Draw(t, "lines")
		alphabet := rapid.SampledFrom([]string{"x", "y", "}", ""})
		for i := range n {
			line := fmt.Sprintf("%d%s\n", i, alphabet.Draw(t, "text"))
			if rapid.Bool().Draw(t, "repeat") {
				line = "}\n" // repeated lines make the alignment ambiguous
			}
			a.WriteString(line)
			switch rapid.IntRange(0, 11).Draw(t, "op") {
			case 0:
				b.WriteString("changed\n")
			case 1: // dropped
			case 2:
				b.WriteString(line + "added\n")
			default:
				b.WriteString(line)
			}
		}
		cut := func(s, label string) string {
			if rapid.Bool().Draw(t, label) {
				return strings.TrimSuffix(s, "\n") // no newline at the end
			}
			return s
		}
		old, new := cut(a.String(), "old cut"), cut(b.String(), "new cut")
		d := unifiedDiff("a/f", "b/f", old, new)
		if old == new {
			if d != "--- a/f\n+++ b/f" {
				t.Fatalf("diff of equal texts:\n%s", d)
			}
			return
		}
		if got := applyDiff(t, old, d); got != new {
			t.Fatalf("diff\n%s\napplied to %q gives %q, want %q", d, old, got, new)
		}
	})
}

func TestUnifiedDiffEdgeCases(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"one changed line in the middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8"},
		{"a created file", "", "one\ntwo\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+one\n+two"},
		{"every line deleted", "one\ntwo\n", "", "@@ -1,2 +0,0 @@\n-one\n-two"},
		{"a line added to a file without a final newline", "a\nb", "a\nb\nc\n",
			"@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c"},
		{"a final newline removed", "a\nb\n", "a\nb",
			"@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file"},
		{"a change before a last line without newline", "a\nb\nc", "A\nb\nc",
			"@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n\\ No newline at end of file"},
		{"CRLF lines are shown without their CR", "one\r\ntwo\r\nthree\r\n", "one\r\n2\r\nthree\r\n",
			"@@ -1,3 +1,3 @@\n one\n-two\n+2\n three"},
		{"a line inserted after the one edit anchored on is the only change", "x\nanchor\ny\n", "x\nanchor\nadded\ny\n",
			"@@ -1,3 +1,4 @@\n x\n anchor\n+added\n y"},
		{"changes far apart get their own hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n",
			"@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := unifiedDiff("a/f", "b/f", tt.old, tt.new)
			if !strings.Contains(got, tt.want) {
				t.Fatalf("diff:\n%s\nwant it to hold:\n%s", got, tt.want)
			}
			if !strings.Contains(tt.old+tt.new, "\r") {
				if applied := applyDiff(t, tt.old, got); applied != tt.new {
					t.Fatalf("diff applies to %q", applied)
				}
			}
		})
	}
}

func TestUnifiedDiffOfHugelyDifferentTextsIsCutAndStillValid(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		a.WriteString("a\n")
		b.WriteString(string(rune('A'+i%26)) + "\n")
	}
	d := unifiedDiff("a/f", "b/f", a.String(), b.String())
	lines := strings.Split(d, "\n")
	if len(lines) != diffMaxLines+1 || !strings.HasPrefix(lines[diffMaxLines], "… diff cut: ") {
		t.Fatalf("diff of %d lines ends %q, want %d lines and a cut note", len(lines), lines[len(lines)-1], diffMaxLines+1)
	}
	small := unifiedDiff("a/f", "b/f", "a\nb\n", strings.Repeat("x", 2000)+"\nb\n")
	if !strings.Contains(small, "+"+strings.Repeat("x", 500)) || strings.Contains(small, strings.Repeat("x", 501)) {
		t.Fatalf("a long line is not cut at 500 characters:\n%.700s", small)
	}
}
