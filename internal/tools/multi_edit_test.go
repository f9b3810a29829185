package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type edits = []map[string]any

func TestMultiEditAppliesEditsInOrderAndShowsOneDiff(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": goSource})
	got := mustSucceed(t, NewMultiEdit(ws), map[string]any{
		"file_path": "main.go",
		"edits": edits{
			{"old_string": `"hello"`, "new_string": `"hi"`},
			// The second edit matches text the first one wrote.
			{"old_string": `fmt.Println("hi")`, "new_string": `fmt.Println("hi there")`},
			{"old_string": "fmt.", "new_string": "log.", "replace_all": true},
			{"old_string": `import "fmt"`, "new_string": `import "log"`},
		},
	})
	want := `Edited ` + filepath.Join(ws.Root, "main.go") + `: 4 edits, 5 replacements.
--- a/main.go
+++ b/main.go
@@ -1,8 +1,8 @@
 package main
 
-import "fmt"
+import "log"
 
 func main() {
-	fmt.Println("hello")
-	fmt.Println("world")
+	log.Println("hi there")
+	log.Println("world")
 }`
	if got != want {
		t.Fatalf("result:\n%s\nwant:\n%s", got, want)
	}
	wantFile := strings.NewReplacer(`"fmt"`, `"log"`, "fmt.", "log.", `"hello"`, `"hi there"`).Replace(goSource)
	if s := readFile(t, filepath.Join(ws.Root, "main.go")); s != wantFile {
		t.Fatalf("file now:\n%s\nwant:\n%s", s, wantFile)
	}
}

func TestMultiEditWritesNothingWhenAnyEditFailsAndNamesIt(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": goSource})
	tool := NewMultiEdit(ws)
	tests := []struct {
		name  string
		edits edits
		want  []string
	}{
		{"a later edit finds nothing", edits{
			{"old_string": "hello", "new_string": "hi"},
			{"old_string": "fmt.Printf", "new_string": "x"},
		}, []string{"edits[1] (edit 2 of 2) failed", "no edit was written", "old_string was not found in " + filepath.Join(ws.Root, "main.go")}},
		{"an edit matches several places", edits{
			{"old_string": "hello", "new_string": "hi"},
			{"old_string": "world", "new_string": "earth"},
			{"old_string": "fmt.Println", "new_string": "log.Println"},
		}, []string{"edits[2] (edit 3 of 3) failed", "matches 2 places", "replace_all"}},
		{"an earlier edit removed what a later one looks for", edits{
			{"old_string": "hello", "new_string": "hi"},
			{"old_string": "hello", "new_string": "hey"},
		}, []string{"edits[1] (edit 2 of 2) failed", "not found"}},
		{"identical strings", edits{
			{"old_string": "main", "new_string": "main"},
		}, []string{"edits[0] (edit 1 of 1) failed", "identical"}},
		{"empty old_string after the first edit", edits{
			{"old_string": "hello", "new_string": "hi"},
			{"old_string": "", "new_string": "x"},
		}, []string{"edits[1] (edit 2 of 2) failed", "only the first edit may have an empty old_string"}},
		{"empty old_string on a file with content", edits{
			{"old_string": "", "new_string": "x"},
		}, []string{"edits[0]", "already has content"}},
		{"no edits", edits{}, []string{"edits"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertContains(t, mustFail(t, tool, map[string]any{"file_path": "main.go", "edits": tt.edits}), tt.want...)
			if s := readFile(t, filepath.Join(ws.Root, "main.go")); s != goSource {
				t.Fatalf("the file changed after a failed multi_edit:\n%s", s)
			}
		})
	}
}

func TestMultiEditRefusesBadFiles(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"bin": "a\x00b", "dir/": ""})
	tool := NewMultiEdit(ws)
	tests := []struct {
		name, path string
		want       []string
	}{
		{"missing file", "gone.go", []string{"gone.go does not exist", "empty old_string"}},
		{"binary file", "bin", []string{"binary file"}},
		{"directory", "dir", []string{"is a directory"}},
		{"outside the workspace", "/etc/hosts", []string{"outside the workspace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertContains(t, mustFail(t, tool, map[string]any{"file_path": tt.path, "edits": edits{{"old_string": "a", "new_string": "b"}}}), tt.want...)
		})
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "gone.go")); err == nil {
		t.Fatal("a failed multi_edit created the missing file")
	}
}

func TestMultiEditWithEmptyFirstOldStringCreatesTheFile(t *testing.T) {
	ws := newWorkspace(t, nil)
	got := mustSucceed(t, NewMultiEdit(ws), map[string]any{
		"file_path": "new/x.txt",
		"edits": edits{
			{"old_string": "", "new_string": "one\ntwo\n"},
			{"old_string": "two", "new_string": "2"},
		},
	})
	assertContains(t, got, "Created "+filepath.Join(ws.Root, "new/x.txt")+": 2 edits, 2 replacements.", "--- /dev/null", "+++ b/new/x.txt", "@@ -0,0 +1,2 @@", "+one", "+2")
	if s := readFile(t, filepath.Join(ws.Root, "new/x.txt")); s != "one\n2\n" {
		t.Fatalf("content = %q", s)
	}
}

func TestMultiEditDiffPreviewsWithoutWritingAndLocksLikeEdit(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": goSource})
	tool := NewMultiEdit(ws)
	in := input(t, map[string]any{"file_path": "main.go", "edits": edits{{"old_string": "world", "new_string": "earth"}}})
	diff, err := tool.(Differ).Diff(in)
	if err != nil {
		t.Fatal(err)
	}
	assertContains(t, diff, "--- a/main.go", "-\tfmt.Println(\"world\")", "+\tfmt.Println(\"earth\")")
	if s := readFile(t, filepath.Join(ws.Root, "main.go")); s != goSource {
		t.Fatal("Diff wrote the file")
	}
	if got := tool.(Subjecter).Subject(in); got != "main.go" {
		t.Fatalf("Subject = %q, want main.go", got)
	}
	real, _ := filepath.EvalSymlinks(filepath.Join(ws.Root, "main.go"))
	editKeys := NewEdit(ws).(Locker).LockKeys(input(t, map[string]any{"file_path": "main.go"}))
	if keys := tool.(Locker).LockKeys(in); len(keys) != 1 || keys[0] != real || keys[0] != editKeys[0] {
		t.Fatalf("LockKeys = %v, want [%s] as edit's", keys, real)
	}
	if tool.Kind() != Edit {
		t.Fatalf("Kind = %v, want Edit", tool.Kind())
	}
}

func TestMultiEditKeepsCRLFLineEndings(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"win.txt": "one\r\ntwo\r\nthree\r\n"})
	mustSucceed(t, NewMultiEdit(ws), map[string]any{"file_path": "win.txt", "edits": edits{
		{"old_string": "one\ntwo", "new_string": "uno\ndos"},
		{"old_string": "three", "new_string": "tres"},
	}})
	if s := readFile(t, filepath.Join(ws.Root, "win.txt")); s != "uno\r\ndos\r\ntres\r\n" {
		t.Fatalf("content = %q", s)
	}
}
