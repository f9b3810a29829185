package tools

import (
	"path/filepath"
	"slices"
	"testing"
)

// Edge cases of gitignore(5), each as git itself decides it (checked with
// git check-ignore).
func TestGitignoreEdgeCasesFollowGit(t *testing.T) {
	tests := []struct {
		name    string
		rules   string
		path    string
		isDir   bool
		ignored bool
	}{
		{"double star matches any depth", "**/gen/*.go", "a/b/gen/x.go", false, true},
		{"double star backtracks over a repeated name", "**/foo/bar", "foo/x/foo/bar", false, true},
		{"double star in the middle spans many folders", "src/**/out", "src/a/b/c/out", true, true},
		{"trailing double star does not ignore the folder itself", "out/**", "out", true, false},
		{"character class range", "*.[oa]", "lib.a", false, true},
		{"character class does not match outside it", "*.[oa]", "lib.so", false, false},
		{"negated character class", "x[!0-9].txt", "xa.txt", false, true},
		{"negated character class refuses its members", "x[!0-9].txt", "x5.txt", false, false},
		{"negation after a wildcard re-includes", "*.env\n!example.env", "cfg/example.env", false, false},
		{"negation re-includes below a trailing double star", "out/**\n!out/keep.txt", "out/keep.txt", false, false},
		{"directory-only rule ignores a folder at any depth", "cache/", "a/b/cache", true, true},
		{"directory-only rule spares a file of that name", "cache/", "a/b/cache", false, false},
		{"anchored rule matches only at its file's folder", "/todo.txt", "todo.txt", false, true},
		{"anchored rule does not match deeper", "/todo.txt", "docs/todo.txt", false, false},
		{"anchored folder rule", "/dist/", "dist", true, true},
		{"escaped leading bang is a literal name", `\!important`, "!important", false, true},
		{"braces are literal, not alternatives", "{a,b}.txt", "{a,b}.txt", false, true},
		{"braces do not expand", "{a,b}.txt", "a.txt", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack := ignoreStack{parseGitignore("/repo", []byte(tt.rules))}
			if got := stack.ignored(filepath.Join("/repo", tt.path), tt.isDir); got != tt.ignored {
				t.Fatalf("rules %q, path %q (dir %v): ignored = %v, want %v", tt.rules, tt.path, tt.isDir, got, tt.ignored)
			}
		})
	}
}

// Nested .gitignore files: a deeper file's rules are relative to its own
// folder and override the shallower ones, over a real walk (its files are
// those git status lists for the same tree).
func TestWalkTreeAppliesNestedGitignoresRelativeToTheirFolder(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".git/HEAD":               "",
		".gitignore":              "*.out\n/build/\n",
		"build/x":                 "",
		"svc/.gitignore":          "!keep.out\n/local/\ndocs/*.md\n",
		"svc/keep.out":            "",
		"svc/drop.out":            "",
		"svc/local/a.go":          "",
		"svc/deep/local/b.go":     "",
		"svc/build/c.go":          "",
		"svc/docs/readme.md":      "",
		"svc/deep/docs/readme.md": "",
		"svc/deep/.gitignore":     "!*.out\n",
		"svc/deep/again.out":      "",
		"other/keep.out":          "",
		"other/local/d.go":        "",
		"public/index.html":       "",
		"public/asset.js":         "",
		"public/.gitignore":       "/*\n!/index.html\n!.gitignore\n",
	})
	want := []string{
		".gitignore", "other", "other/local", "other/local/d.go",
		"public", "public/.gitignore", "public/index.html",
		"svc", "svc/.gitignore", "svc/build", "svc/build/c.go",
		"svc/deep", "svc/deep/.gitignore", "svc/deep/again.out", "svc/deep/docs", "svc/deep/docs/readme.md",
		"svc/deep/local", "svc/deep/local/b.go", "svc/docs", "svc/keep.out",
	}
	if got := walked(t, ws.Root, ws.Root); !slices.Equal(got, want) {
		t.Errorf("walk:\n got %v\nwant %v", got, want)
	}
}

// A walk that starts inside a folder its repository ignores still lists
// that folder's files (as ripgrep does): the rule that ignores the start
// or one of its parents does not hide everything below it.
func TestWalkTreeStartingInsideAnIgnoredFolderListsIt(t *testing.T) {
	repo := newWorkspace(t, map[string]string{
		".git/HEAD":           "",
		".gitignore":          "scratch/\n*.tmp\n",
		"scratch/proj/a.go":   "",
		"scratch/proj/b.tmp":  "",
		"scratch/proj/c/d.go": "",
	}).Root
	start := filepath.Join(repo, "scratch", "proj")
	want := []string{"scratch/proj/a.go", "scratch/proj/c", "scratch/proj/c/d.go"}
	if got := walked(t, repo, start); !slices.Equal(got, want) {
		t.Errorf("walk from scratch/proj:\n got %v\nwant %v", got, want)
	}
}
