package tools

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// applyChanges rebuilds the new lines from the old ones and changes.
func applyChanges(old []string, changes []lineChange) []string {
	var out []string
	pos := 0
	for _, c := range changes {
		out = append(out, old[pos:c.oldStart]...)
		out = append(out, c.newLines...)
		pos = c.oldStart + len(c.oldLines)
	}
	return append(out, old[pos:]...)
}

func TestLineDiffChangesRebuildTheNewLinesAndTouchNoEqualLine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		line := rapid.SampledFrom([]string{"a\n", "b\n", "c\n", "d\n", "e"})
		a := rapid.SliceOfN(line, 0, 30).Draw(t, "a")
		b := rapid.SliceOfN(line, 0, 30).Draw(t, "b")
		changes := lineDiff(a, b)
		if got := applyChanges(a, changes); !slices.Equal(got, b) {
			t.Fatalf("changes %v rebuild %q, want %q", changes, got, b)
		}
		for i, c := range changes {
			if len(c.oldLines) == 0 && len(c.newLines) == 0 {
				t.Fatalf("change %d is empty", i)
			}
			if i > 0 && changes[i-1].oldStart+len(changes[i-1].oldLines) >= c.oldStart {
				t.Fatalf("changes %d and %d touch or overlap: %v", i-1, i, changes)
			}
		}
	})
}

func TestLineDiffOfOneChangedLineIsThatLine(t *testing.T) {
	a := []string{"1\n", "2\n", "3\n", "4\n", "5\n"}
	b := []string{"1\n", "2\n", "three\n", "4\n", "5\n"}
	got := lineDiff(a, b)
	if len(got) != 1 || got[0].oldStart != 2 || !slices.Equal(got[0].oldLines, []string{"3\n"}) || !slices.Equal(got[0].newLines, []string{"three\n"}) {
		t.Fatalf("lineDiff = %+v, want line 3 replaced by three", got)
	}
}

func TestLineDiffOfHugelyDifferentTextsShowsTheRegionReplaced(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, "a\n")
		b = append(b, string(rune('A'+i%26))+"\n")
	}
	got := lineDiff(a, b)
	if !slices.Equal(applyChanges(a, got), b) {
		t.Fatal("the changes do not rebuild the new text")
	}
}
