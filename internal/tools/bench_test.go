package tools

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is this repository's root, two levels above the package.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// BenchmarkWalkTreeOverThisRepository walks the repository as glob and grep
// do, honouring its .gitignore files.
func BenchmarkWalkTreeOverThisRepository(b *testing.B) {
	root := repoRoot(b)
	tr := openTestTree(b, root, root)
	for b.Loop() {
		n := 0
		_, err := walkTree(b.Context(), tr, root, root, func(string, fs.DirEntry) error { n++; return nil })
		if err != nil || n < 100 {
			b.Fatalf("walk saw %d entries: %v", n, err)
		}
	}
}

// BenchmarkGlobOverThisRepository runs the glob tool with a "**" pattern.
func BenchmarkGlobOverThisRepository(b *testing.B) {
	glob := NewGlob(Workspace{Root: repoRoot(b)})
	in := input(b, map[string]any{"pattern": "internal/**/*_test.go"})
	for b.Loop() {
		res, err := glob.Run(b.Context(), Call{Input: in})
		if err != nil || !strings.Contains(res.Content, "bench_test.go") {
			b.Fatalf("glob = %+v, %v", res, err)
		}
	}
}

// twoThousandLines is a 2,000-line Go-like file.
func twoThousandLines() string {
	var s strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&s, "\tvalue%d := compute(%d) // line %d\n", i, i*7, i+1)
	}
	return s.String()
}

// BenchmarkEditDiffOf2000LineFile previews an edit replacing 40 lines
// spread over a 2,000-line file.
func BenchmarkEditDiffOf2000LineFile(b *testing.B) {
	content := twoThousandLines()
	content = strings.ReplaceAll(content, "compute(350)", "target()")
	for i := 0; i < 2000; i += 50 {
		content = strings.Replace(content, fmt.Sprintf("compute(%d)", i*7), "target()", 1)
	}
	ws := newWorkspace(b, map[string]string{"big.go": content})
	in := input(b, map[string]any{"file_path": "big.go", "old_string": "target()", "new_string": "hit()", "replace_all": true})
	d := NewEdit(ws).(Differ)
	for b.Loop() {
		diff, err := d.Diff(in)
		if err != nil || strings.Count(diff, "+\t") != 40 {
			b.Fatalf("diff (%d added lines): %v\n%s", strings.Count(diff, "+\t"), err, diff)
		}
	}
}

// BenchmarkMultiEditDiffOf2000LineFile previews 20 edits spread over a
// 2,000-line file: one diff of the whole change.
func BenchmarkMultiEditDiffOf2000LineFile(b *testing.B) {
	ws := newWorkspace(b, map[string]string{"big.go": twoThousandLines()})
	var edits []map[string]any
	for i := 0; i < 2000; i += 100 {
		edits = append(edits, map[string]any{
			"old_string": fmt.Sprintf("// line %d\n", i+1),
			"new_string": fmt.Sprintf("// line %d, changed\n\tinserted()\n", i+1),
		})
	}
	in := input(b, map[string]any{"file_path": "big.go", "edits": edits})
	d := NewMultiEdit(ws).(Differ)
	for b.Loop() {
		diff, err := d.Diff(in)
		if err != nil || strings.Count(diff, "+\tinserted()") != 20 {
			b.Fatalf("diff: %v\n%s", err, diff)
		}
	}
}

// repoPaths lists the repository's files and folders (slash-separated,
// relative to its root) once, for the matching benchmarks.
func repoPaths(b *testing.B) (files, dirs []string) {
	root := repoRoot(b)
	_, err := walkTree(b.Context(), openTestTree(b, root, root), root, root, func(abs string, d fs.DirEntry) error {
		rel, _ := relBelow(root, abs)
		if d.IsDir() {
			dirs = append(dirs, rel)
		} else {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return files, dirs
}

// BenchmarkGlobMatchOverThisRepository matches every path of the
// repository against glob patterns, without the file system.
func BenchmarkGlobMatchOverThisRepository(b *testing.B) {
	files, dirs := repoPaths(b)
	var globs []*globPattern
	for _, p := range []string{"**/*.go", "internal/**/*_test.go", "cmd/*/main.go", "**/*.{md,yaml}", "*.go"} {
		g, err := compileGlob(p)
		if err != nil {
			b.Fatal(err)
		}
		globs = append(globs, g)
	}
	for b.Loop() {
		n := 0
		for _, g := range globs {
			for _, f := range files {
				if g.match(f) {
					n++
				}
			}
			for _, d := range dirs {
				if g.canDescend(d) {
					n++
				}
			}
		}
		if n == 0 {
			b.Fatal("nothing matched")
		}
	}
}

// BenchmarkGitignoreMatchOverThisRepository asks whether each path of the
// repository is ignored by a typical set of rules, without the file system.
func BenchmarkGitignoreMatchOverThisRepository(b *testing.B) {
	files, dirs := repoPaths(b)
	stack := ignoreStack{
		parseGitignore("/repo", []byte("*.log\n/dist/\nnode_modules/\n**/testdata/*.golden\nbuild/**\n!build/keep\n*.[oa]\n.env*\n")),
		parseGitignore("/repo/internal", []byte("*.tmp\ngen/\n!*.gen.go\n")),
	}
	for b.Loop() {
		for _, f := range files {
			stack.ignored("/repo/"+f, false)
		}
		for _, d := range dirs {
			stack.ignored("/repo/"+d, true)
		}
	}
}
