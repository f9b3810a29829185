package tools

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
)

func TestGitignoreRules(t *testing.T) {
	tests := []struct {
		name    string
		rules   string
		path    string
		isDir   bool
		ignored bool
	}{
		{"name at any depth", "*.log", "a/b/x.log", false, true},
		{"name does not match other names", "*.log", "a/x.txt", false, false},
		{"plain name matches a directory too", "build", "sub/build", true, true},
		{"anchored pattern matches at the root", "/build", "build", true, true},
		{"anchored pattern does not match deeper", "/build", "sub/build", true, false},
		{"slash in the middle anchors", "doc/*.txt", "doc/a.txt", false, true},
		{"slash in the middle anchors, not deeper", "doc/*.txt", "x/doc/a.txt", false, false},
		{"star stops at slashes", "doc/*.txt", "doc/sub/a.txt", false, false},
		{"directory-only pattern skips files", "logs/", "logs", false, false},
		{"directory-only pattern matches directories", "logs/", "a/logs", true, true},
		{"leading double star", "**/tmp", "a/b/tmp", true, true},
		{"double star in the middle", "a/**/b", "a/x/y/b", false, true},
		{"double star in the middle matches zero dirs", "a/**/b", "a/b", false, true},
		{"trailing double star matches contents", "out/**", "out/x/y.o", false, true},
		{"negation re-includes", "*.log\n!keep.log", "keep.log", false, false},
		{"later rule wins", "!keep.log\n*.log", "keep.log", false, true},
		{"comments and blank lines are skipped", "# *.go\n\n", "main.go", false, false},
		{"escaped hash", `\#notes`, "#notes", false, true},
		{"trailing spaces are dropped", "secret.txt   ", "secret.txt", false, true},
		{"escaped trailing space is kept", `name\ `, "name ", false, true},
		{"CRLF line endings", "*.tmp\r\n", "x.tmp", false, true},
		{"character class", "file[0-9].txt", "file7.txt", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := parseGitignore("/repo", []byte(tt.rules))
			stack := ignoreStack{g}
			if got := stack.ignored(filepath.Join("/repo", tt.path), tt.isDir); got != tt.ignored {
				t.Fatalf("rules %q, path %q (dir %v): ignored = %v, want %v", tt.rules, tt.path, tt.isDir, got, tt.ignored)
			}
		})
	}
}

func TestNestedGitignoreOverridesItsParent(t *testing.T) {
	stack := ignoreStack{
		parseGitignore("/repo", []byte("*.gen.go\n/vendor/\n")),
		parseGitignore("/repo/api", []byte("!*.gen.go\nlocal/\n")),
	}
	tests := []struct {
		path    string
		isDir   bool
		ignored bool
	}{
		{"x.gen.go", false, true},
		{"api/x.gen.go", false, false}, // the deeper file re-includes
		{"vendor", true, true},
		{"api/vendor", true, false}, // "/vendor/" is anchored to /repo
		{"api/local", true, true},
		{"local", true, false}, // api's rules do not reach up
	}
	for _, tt := range tests {
		if got := stack.ignored(filepath.Join("/repo", tt.path), tt.isDir); got != tt.ignored {
			t.Errorf("%s: ignored = %v, want %v", tt.path, got, tt.ignored)
		}
	}
}

func TestWalkTreeSkipsIgnoredEntriesAndGit(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".gitignore":          "*.log\nbuild/\n/top.txt\n",
		".git/HEAD":           "ref",
		"main.go":             "",
		"top.txt":             "",
		"app.log":             "",
		"build/out.bin":       "",
		"pkg/top.txt":         "",
		"pkg/.gitignore":      "!debug.log\ngen/\n",
		"pkg/debug.log":       "",
		"pkg/other.log":       "",
		"pkg/gen/x.go":        "",
		"pkg/sub/keep.go":     "",
		"pkg/sub/.gitignore":  "keep.go\n",
		"docs/build":          "a file named like an ignored dir",
		"docs/readme.md":      "",
		"deep/er/still.log":   "",
		"deep/er/visible.txt": "",
	})
	walk := func(start string) []string { return walked(t, ws.Root, start) }
	want := []string{
		".gitignore", "deep", "deep/er", "deep/er/visible.txt", "docs", "docs/build", "docs/readme.md",
		"main.go", "pkg", "pkg/.gitignore", "pkg/debug.log", "pkg/sub", "pkg/sub/.gitignore", "pkg/top.txt",
	}
	if got := walk(ws.Root); !slices.Equal(got, want) {
		t.Errorf("walk from the root:\n got %v\nwant %v", got, want)
	}
	// Starting below the root, the root's .gitignore still applies.
	wantPkg := []string{"pkg/.gitignore", "pkg/debug.log", "pkg/sub", "pkg/sub/.gitignore", "pkg/top.txt"}
	if got := walk(filepath.Join(ws.Root, "pkg")); !slices.Equal(got, wantPkg) {
		t.Errorf("walk from pkg:\n got %v\nwant %v", got, wantPkg)
	}
}

func TestWalkTreeStopsWhenCancelled(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a/b/c.txt": ""})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := walkTree(ctx, openTestTree(t, ws.Root, ws.Root), ws.Root, ws.Root, func(string, fs.DirEntry) error { return nil })
	if err == nil {
		t.Fatal("walk of a cancelled context succeeded")
	}
}

func TestAncestorIgnoresComeFromTheRepositoryRoot(t *testing.T) {
	repo := newWorkspace(t, map[string]string{
		".git/HEAD":         "",
		".gitignore":        "*.tmp\n",
		"ws/.gitignore":     "*.bak\n",
		"ws/src/a.tmp":      "",
		"ws/src/b.bak":      "",
		"ws/src/c.go":       "",
		"ws/src/.gitignore": "",
	}).Root
	root := filepath.Join(repo, "ws")
	var got []string
	_, err := walkTree(context.Background(), openTestTree(t, root, filepath.Join(root, "src")), filepath.Join(root, "src"), root, func(abs string, d fs.DirEntry) error {
		got = append(got, d.Name())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The repository's .gitignore applies even though it lies above the
	// workspace root.
	if want := []string{".gitignore", "c.go"}; !slices.Equal(got, want) {
		t.Fatalf("walk = %v, want %v", got, want)
	}
}

// The repository's .git/info/exclude ignores as a root .gitignore does:
// Atomic puts its sub-agents' worktrees there, which glob and grep of the
// lead must not search.
func TestWalkTreeHonoursTheRepositorysInfoExclude(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".git/HEAD":           "",
		".git/info/exclude":   "# local\n/.atomic/worktrees/\n*.swp\n",
		".atomic/agents/a.md": "",
		".atomic/worktrees/general-purpose-1/x.go": "",
		"main.go":         "",
		"pkg/main.go.swp": "",
		"pkg/b.go":        "",
	})
	for _, start := range []string{ws.Root, filepath.Join(ws.Root, "pkg")} {
		got := walked(t, ws.Root, start)
		want := []string{".atomic", ".atomic/agents", ".atomic/agents/a.md", "main.go", "pkg", "pkg/b.go"}
		if start != ws.Root {
			want = []string{"pkg/b.go"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("walk from %s:\n got %v\nwant %v", start, got, want)
		}
	}
}

// walked lists, relative to root and in walk order, what walkTree visits
// from start.
func walked(t *testing.T, root, start string) []string {
	t.Helper()
	var got []string
	_, err := walkTree(context.Background(), openTestTree(t, root, start), start, root, func(abs string, d fs.DirEntry) error {
		rel, _ := filepath.Rel(root, abs)
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// openTestTree opens start, in the workspace rooted at root, for walkTree.
func openTestTree(t testing.TB, root, start string) *tree {
	t.Helper()
	ws := Workspace{Root: root}
	tg, err := ws.target(start)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ws.openTree(tg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.close)
	return tr
}
