package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadNumbersLinesLikeCatN(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "alpha\nbeta\r\n\ngamma"})
	got := mustSucceed(t, NewRead(ws), map[string]any{"file_path": "a.txt"})
	want := "     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma\n"
	if got != want {
		t.Fatalf("read =\n%q\nwant\n%q", got, want)
	}
}

func TestReadOffsetAndLimitSayHowToGoOn(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	ws := newWorkspace(t, map[string]string{"ten.txt": b.String()})
	read := NewRead(ws)
	tests := []struct {
		name   string
		in     map[string]any
		first  string
		last   string
		note   string
		absent string
	}{
		{"offset and limit", map[string]any{"file_path": "ten.txt", "offset": 3, "limit": 2}, "     3\tline 3", "     4\tline 4", "[showing lines 3-4 of 10; read on with offset=5]", "line 5"},
		{"offset to the end", map[string]any{"file_path": "ten.txt", "offset": 9}, "     9\tline 9", "    10\tline 10", "", "showing"},
		{"offset 0 means 1", map[string]any{"file_path": "ten.txt", "offset": 0, "limit": 1}, "     1\tline 1", "     1\tline 1", "of 10; read on with offset=2", "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustSucceed(t, read, tt.in)
			assertContains(t, got, tt.first, tt.last, tt.note)
			if strings.Contains(got, tt.absent) {
				t.Errorf("output contains %q:\n%s", tt.absent, got)
			}
		})
	}
	msg := mustFail(t, read, map[string]any{"file_path": "ten.txt", "offset": 11})
	assertContains(t, msg, "offset 11 is past the end", "which has 10 lines")
}

func TestReadCutsLongLines(t *testing.T) {
	long := strings.Repeat("é", 1500) // 3000 bytes
	ws := newWorkspace(t, map[string]string{"long.txt": long + "\nshort\n"})
	got := mustSucceed(t, NewRead(ws), map[string]any{"file_path": "long.txt"})
	assertContains(t, got, "[line cut: 1000 more bytes]", "     2\tshort")
	first, _, _ := strings.Cut(got, "\n")
	if len(first) > readMaxLineLen+100 {
		t.Errorf("first line is %d bytes", len(first))
	}
}

func TestReadRefusesWhatIsNotAReadableTextFile(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		"nul.bin":   "text\x00more",
		"latin1":    "caf\xe9 au lait",
		"dir/x.txt": "x",
		"empty.txt": "",
	})
	read := NewRead(ws)
	tests := []struct {
		name, path string
		want       []string
	}{
		{"NUL bytes", "nul.bin", []string{"nul.bin is a binary file"}},
		{"invalid UTF-8", "latin1", []string{"is a binary file"}},
		{"directory", "dir", []string{"is a directory", "use ls"}},
		{"missing", "nope.txt", []string{"nope.txt does not exist", "workspace root " + ws.Root}},
		{"outside", "/etc/hostname", []string{"outside the workspace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertContains(t, mustFail(t, read, map[string]any{"file_path": tt.path}), tt.want...)
		})
	}
	assertContains(t, mustSucceed(t, read, map[string]any{"file_path": "empty.txt"}), "is empty")
}

func TestReadOfAHugeFileNeedsOffsetOrLimit(t *testing.T) {
	ws := newWorkspace(t, nil)
	p := filepath.Join(ws.Root, "big.log")
	line := strings.Repeat("x", 99) + "\n"
	if err := os.WriteFile(p, []byte(strings.Repeat(line, (readMaxWhole/len(line))+100)), 0o644); err != nil {
		t.Fatal(err)
	}
	read := NewRead(ws)
	assertContains(t, mustFail(t, read, map[string]any{"file_path": "big.log"}), "over the 10 MiB limit", "offset and limit", "grep")
	got := mustSucceed(t, read, map[string]any{"file_path": "big.log", "offset": 5, "limit": 2})
	assertContains(t, got, "     5\t", "     6\t", "the file goes on: read on with offset=7")
}

func TestReadCapsTheOutputOfOneCall(t *testing.T) {
	line := strings.Repeat("y", 1000) + "\n"
	ws := newWorkspace(t, map[string]string{"wide.txt": strings.Repeat(line, 1000)})
	got := mustSucceed(t, NewRead(ws), map[string]any{"file_path": "wide.txt"})
	if len(got) > readMaxOutput+200 {
		t.Fatalf("output is %d bytes, over the cap", len(got))
	}
	assertContains(t, got, "of 1000; read on with offset=")
}
