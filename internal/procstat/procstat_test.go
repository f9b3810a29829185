//go:build linux

package procstat

import (
	"os"
	"testing"
)

func TestParseReadsStateAndParentAfterACommandNameWithSpacesAndParentheses(t *testing.T) {
	for _, c := range []struct {
		line  string
		state byte
		ppid  int
		bad   bool
	}{
		{"42 (sleep) S 7 42 42 0", 'S', 7, false},
		{"42 (a (b) c) Z 1 0", 'Z', 1, false},
		{"42 (x) R", 0, 0, true},
		{"42 no parens S 7", 0, 0, true},
		{"42 (x) SS 7", 0, 0, true},
	} {
		state, ppid, err := parse([]byte(c.line))
		if (err != nil) != c.bad || state != c.state || ppid != c.ppid {
			t.Errorf("%q: %c %d %v, want %c %d bad=%v", c.line, state, ppid, err, c.state, c.ppid, c.bad)
		}
	}
}

func TestParentOfThisProcessIsItsParentAndOfAGoneOneIsZero(t *testing.T) {
	if got := Parent(os.Getpid()); got != os.Getppid() {
		t.Fatalf("Parent(self) = %d, want %d", got, os.Getppid())
	}
	if got := Parent(1 << 30); got != 0 {
		t.Fatalf("Parent of a pid that cannot exist = %d, want 0", got)
	}
}

func TestExecdReadsTheForkedButNotExecdFlag(t *testing.T) {
	for _, c := range []struct {
		line  string
		execd bool
		bad   bool
	}{
		{"42 (go) S 7 42 42 0 -1 4194560 120", true, false},
		{"43 (go) S 42 42 42 0 -1 4194368 0", false, false}, // 4194368 = 0x400040: PF_FORKNOEXEC
		{"44 (a) b) S 7 42 42 0 -1 64 0", false, false},
		{"45 (x) S 7 42 42 0 -1", false, true},
		{"46 (x) S 7 42 42 0 -1 flags", false, true},
	} {
		execd, err := parseExecd([]byte(c.line))
		if (err != nil) != c.bad || execd != c.execd {
			t.Errorf("%q: execd %v, err %v; want %v, bad=%v", c.line, execd, err, c.execd, c.bad)
		}
	}
}

func TestThisProcessHasExecdAndAGoneOneIsNotFound(t *testing.T) {
	if execd, ok := Execd(os.Getpid()); !execd || !ok {
		t.Fatalf("Execd(self) = %v, %v; want true, true", execd, ok)
	}
	if _, ok := Execd(1 << 30); ok {
		t.Fatal("Execd of a pid that cannot exist is found")
	}
}
