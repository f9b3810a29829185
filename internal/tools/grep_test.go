package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func grepWorkspace(t testing.TB) Workspace {
	t.Helper()
	ws := newWorkspace(t, map[string]string{
		".gitignore":          "vendor/\n*.gen.go\n",
		"main.go":             "package main\n\nfunc main() {\n\tStart()\n}\n",
		"server/server.go":    "package server\n\n// Start runs it.\nfunc Start() {}\nfunc start() {}\n",
		"server/handler.go":   "package server\n\nfunc Handle() { Start() }\n",
		"server/notes.md":     "Start here.\n",
		"vendor/dep/dep.go":   "func Start() {}\n",
		"api/types.gen.go":    "func Start() {}\n",
		".git/config":         "Start\n",
		"assets/logo.png":     "\x89PNG\x00\x00Start",
		"web/app.ts":          "export function Start() {}\r\n",
		"web/deep/x/other.ts": "nothing here\n",
	})
	setMtimes(t, ws.Root, "server/handler.go", "server/notes.md", "web/app.ts", "main.go", "server/server.go")
	return ws
}

func TestGrepOutputModes(t *testing.T) {
	grep := NewGrep(grepWorkspace(t))
	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{"files with matches, newest first", map[string]any{"pattern": `Start\(`},
			"Found 4 files\nserver/server.go\nmain.go\nweb/app.ts\nserver/handler.go"},
		{"content with line numbers", map[string]any{"pattern": `func \w+\(`, "output_mode": "content", "path": "server"},
			"server/handler.go:3:func Handle() { Start() }\nserver/server.go:4:func Start() {}\nserver/server.go:5:func start() {}"},
		{"count", map[string]any{"pattern": "Start", "output_mode": "count", "glob": "*.go"},
			"4 matching lines in 3 files\nmain.go:1\nserver/handler.go:1\nserver/server.go:2"},
		{"case insensitive", map[string]any{"pattern": "^func start", "case_insensitive": true, "output_mode": "count", "path": "server"},
			"2 matching lines in 1 file\nserver/server.go:2"},
		{"anchors match per line", map[string]any{"pattern": `^\}$`, "output_mode": "content"},
			"main.go:5:}"},
		{"glob by path", map[string]any{"pattern": "function", "glob": "web/**/*.ts", "output_mode": "content"},
			"web/app.ts:1:export function Start() {}"},
		{"explicit ignored file is searched", map[string]any{"pattern": "Start", "path": "vendor/dep/dep.go", "output_mode": "content"},
			"vendor/dep/dep.go:1:func Start() {}"},
		{"head limit", map[string]any{"pattern": "Start", "output_mode": "content", "head_limit": 2, "glob": "*.go"},
			"main.go:4:\tStart()\nserver/handler.go:3:func Handle() { Start() }\n[showing the first 2 of 4 results (head_limit)]"},
		{"no match", map[string]any{"pattern": "Stop"}, `No matches found for "Stop" in the workspace root.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustSucceed(t, grep, tt.in); got != tt.want {
				t.Fatalf("grep %v =\n%s\nwant\n%s", tt.in, got, tt.want)
			}
		})
	}
}

func TestGrepRefusesBadInput(t *testing.T) {
	grep := NewGrep(grepWorkspace(t))
	tests := []struct {
		name string
		in   map[string]any
		want []string
	}{
		{"bad regexp", map[string]any{"pattern": "func (\\w+"}, []string{`invalid regular expression "func (\\w+"`, "missing closing )", "RE2"}},
		{"lookahead", map[string]any{"pattern": "a(?=b)"}, []string{"invalid regular expression", "no lookahead"}},
		{"outside", map[string]any{"pattern": "x", "path": "/etc"}, []string{"outside the workspace"}},
		{"missing path", map[string]any{"pattern": "x", "path": "nope"}, []string{"nope does not exist"}},
		{"bad glob", map[string]any{"pattern": "x", "glob": "[a"}, []string{"invalid glob pattern"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertContains(t, mustFail(t, grep, tt.in), tt.want...)
		})
	}
}

func TestGrepCutsLongLines(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"min.js": "var a=1;" + strings.Repeat("x", 5000) + "needle\n"})
	got := mustSucceed(t, NewGrep(ws), map[string]any{"pattern": "needle", "output_mode": "content"})
	assertContains(t, got, "min.js:1:var a=1;", "[line cut:")
	if len(got) > grepMaxLineLen+100 {
		t.Fatalf("line not cut: %d bytes", len(got))
	}
}

// makeTree writes n Go-like files spread over directories.
func makeTree(tb testing.TB, root string, n int) {
	tb.Helper()
	body := strings.Repeat("// filler line of ordinary source text\nfunc helper() int { return 42 }\n", 40)
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("pkg%02d", i%50), fmt.Sprintf("sub%d", i%7))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		extra := ""
		if i%100 == 0 {
			extra = "func TargetHandler() {}\n"
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(body+extra), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

func TestGrepSearchesAGeneratedTree(t *testing.T) {
	ws := Workspace{Root: t.TempDir()}
	makeTree(t, ws.Root, 300)
	got := mustSucceed(t, NewGrep(ws), map[string]any{"pattern": `func Target\w+`, "output_mode": "count"})
	assertContains(t, got, "3 matching lines in 3 files")
}

func BenchmarkGrep(b *testing.B) {
	ws := Workspace{Root: b.TempDir()}
	makeTree(b, ws.Root, 2000)
	grep := NewGrep(ws)
	in := input(b, map[string]any{"pattern": `func Target\w+`, "output_mode": "content"})
	b.ResetTimer()
	for b.Loop() {
		res, err := grep.Run(b.Context(), Call{Input: in})
		if err != nil || !strings.Contains(res.Content, "TargetHandler") {
			b.Fatalf("grep = %+v, %v", res, err)
		}
	}
}
