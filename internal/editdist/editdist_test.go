package editdist

import "testing"

func TestLevenshteinCountsInsertionsDeletionsAndSubstitutions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"claude-x", "claude-y", 1}, {"model", "modle", 2}} {
		if got := Levenshtein(c.a, c.b); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
