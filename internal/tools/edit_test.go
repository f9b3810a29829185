package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

const goSource = `package main

import "fmt"

func main() {
	fmt.Println("hello")
	fmt.Println("world")
}
`

func TestEditReplacesAUniqueMatchAndShowsTheDiff(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": goSource})
	got := mustSucceed(t, NewEdit(ws), map[string]any{
		"file_path": "main.go", "old_string": `fmt.Println("hello")`, "new_string": `fmt.Println("hi")`,
	})
	want := `Edited ` + filepath.Join(ws.Root, "main.go") + `: 1 replacement.
--- a/main.go
+++ b/main.go
@@ -3,6 +3,6 @@
 import "fmt"
 
 func main() {
-	fmt.Println("hello")
+	fmt.Println("hi")
 	fmt.Println("world")
 }`
	if got != want {
		t.Fatalf("result:\n%s\nwant:\n%s", got, want)
	}
	if s := readFile(t, filepath.Join(ws.Root, "main.go")); s != strings.Replace(goSource, "hello", "hi", 1) {
		t.Fatalf("file now:\n%s", s)
	}
}

func TestEditRefusesAnAmbiguousMatch(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": goSource})
	msg := mustFail(t, NewEdit(ws), map[string]any{"file_path": "main.go", "old_string": "fmt.Println", "new_string": "log.Println"})
	assertContains(t, msg, "matches 2 places", "add more surrounding lines", "replace_all")
	if s := readFile(t, filepath.Join(ws.Root, "main.go")); s != goSource {
		t.Fatal("the file changed after a refused edit")
	}
}

func TestEditReplaceAllChangesEveryOccurrence(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": goSource})
	got := mustSucceed(t, NewEdit(ws), map[string]any{
		"file_path": "main.go", "old_string": "fmt.Println", "new_string": "log.Println", "replace_all": true,
	})
	assertContains(t, got, "2 replacements", "-\tfmt.Println(\"hello\")", "+\tlog.Println(\"world\")")
	if s := readFile(t, filepath.Join(ws.Root, "main.go")); strings.Contains(s, "fmt.Println") || strings.Count(s, "log.Println") != 2 {
		t.Fatalf("file now:\n%s", s)
	}
}

func TestEditExplainsAMissingMatch(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": goSource})
	edit := NewEdit(ws)
	tests := []struct {
		name, old string
		want      []string
	}{
		{"absent", "fmt.Printf", []string{"old_string was not found in " + filepath.Join(ws.Root, "main.go"), "read it again"}},
		{"whitespace differs", "func main() {\n    fmt.Println(\"hello\")", []string{"not found", "does match if whitespace is ignored", "tabs or spaces"}},
		{"read's line numbers included", "     5\tfunc main() {", []string{"not found", "line-number prefixes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertContains(t, mustFail(t, edit, map[string]any{"file_path": "main.go", "old_string": tt.old, "new_string": "x"}), tt.want...)
		})
	}
}

func TestEditRefusesBadRequests(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": goSource, "bin": "a\x00b"})
	edit := NewEdit(ws)
	tests := []struct {
		name string
		in   map[string]any
		want []string
	}{
		{"identical strings", map[string]any{"file_path": "main.go", "old_string": "main", "new_string": "main"}, []string{"identical"}},
		{"empty old_string on a file with content", map[string]any{"file_path": "main.go", "old_string": "", "new_string": "x"}, []string{"old_string is empty", "already has content", "write"}},
		{"missing file", map[string]any{"file_path": "gone.go", "old_string": "a", "new_string": "b"}, []string{"gone.go does not exist", "empty old_string"}},
		{"binary file", map[string]any{"file_path": "bin", "old_string": "a", "new_string": "b"}, []string{"binary file"}},
		{"outside", map[string]any{"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}, []string{"outside the workspace"}},
		{"missing new_string", map[string]any{"file_path": "main.go", "old_string": "a"}, []string{"missing required field `new_string`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertContains(t, mustFail(t, edit, tt.in), tt.want...)
		})
	}
}

func TestEditWithEmptyOldStringCreatesAMissingFile(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"empty.txt": ""})
	edit := NewEdit(ws)
	got := mustSucceed(t, edit, map[string]any{"file_path": "new/dir/x.txt", "old_string": "", "new_string": "one\ntwo\n"})
	assertContains(t, got, "Created", "--- /dev/null", "+++ b/new/dir/x.txt", "@@ -0,0 +1,2 @@", "+one", "+two")
	if s := readFile(t, filepath.Join(ws.Root, "new/dir/x.txt")); s != "one\ntwo\n" {
		t.Fatalf("content = %q", s)
	}
	mustSucceed(t, edit, map[string]any{"file_path": "empty.txt", "old_string": "", "new_string": "filled"})
	if s := readFile(t, filepath.Join(ws.Root, "empty.txt")); s != "filled" {
		t.Fatalf("empty file now %q", s)
	}
}

func TestEditMatchesLinesOfACRLFFile(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"win.txt": "one\r\ntwo\r\nthree\r\n"})
	mustSucceed(t, NewEdit(ws), map[string]any{"file_path": "win.txt", "old_string": "one\ntwo", "new_string": "uno\ndos"})
	if s := readFile(t, filepath.Join(ws.Root, "win.txt")); s != "uno\r\ndos\r\nthree\r\n" {
		t.Fatalf("content = %q", s)
	}
}

func TestEditDiffShowsTheChangeWithoutWriting(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": goSource})
	p := filepath.Join(ws.Root, "main.go")
	in := input(t, map[string]any{"file_path": "main.go", "old_string": "\"world\"", "new_string": "\"there\""})
	d, err := EditDiff(p, in)
	if err != nil {
		t.Fatal(err)
	}
	assertContains(t, d, "-\tfmt.Println(\"world\")", "+\tfmt.Println(\"there\")", "@@ -4,5 +4,5 @@")
	viaTool, err := NewEdit(ws).(Differ).Diff(in)
	if err != nil {
		t.Fatal(err)
	}
	assertContains(t, viaTool, "--- a/main.go", "+\tfmt.Println(\"there\")")
	if readFile(t, p) != goSource {
		t.Fatal("computing a diff changed the file")
	}
	if _, err := EditDiff(p, input(t, map[string]any{"file_path": "main.go", "old_string": "nope", "new_string": "x"})); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("EditDiff of a missing match: %v", err)
	}
}

func TestEditDiffGroupsNearbyChangesIntoHunks(t *testing.T) {
	lines := make([]string, 30)
	for i := range lines {
		lines[i] = "x"
	}
	lines[1], lines[4], lines[25] = "target", "target", "target"
	content := strings.Join(lines, "\n") + "\n"
	ws := newWorkspace(t, map[string]string{"f.txt": content})
	got := mustSucceed(t, NewEdit(ws), map[string]any{"file_path": "f.txt", "old_string": "target", "new_string": "hit\nhit", "replace_all": true})
	// Lines 2 and 5 are close enough to share a hunk; line 26 gets its own.
	assertContains(t, got, "@@ -1,8 +1,10 @@", "@@ -23,7 +25,8 @@")
	if n := strings.Count(got, "@@ -"); n != 2 {
		t.Fatalf("%d hunks, want 2:\n%s", n, got)
	}
	if s := readFile(t, filepath.Join(ws.Root, "f.txt")); strings.Count(s, "hit") != 6 {
		t.Fatalf("content:\n%s", s)
	}
}

func TestEditLocksTheFileItChanges(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.go": "x"})
	keys := NewEdit(ws).(Locker).LockKeys(input(t, map[string]any{"file_path": "a.go", "old_string": "x", "new_string": "y"}))
	real, _ := filepath.EvalSymlinks(filepath.Join(ws.Root, "a.go"))
	if len(keys) != 1 || keys[0] != real {
		t.Fatalf("LockKeys = %v, want [%s]", keys, real)
	}
	if got := NewEdit(ws).(Subjecter).Subject(input(t, map[string]any{"file_path": "a.go"})); got != "a.go" {
		t.Fatalf("Subject = %q", got)
	}
}
