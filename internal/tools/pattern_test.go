package tools

import (
	"testing"
)

func TestGlobPatterns(t *testing.T) {
	tests := []struct {
		pattern, path string
		match         bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "cmd/main.go", false},
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c/main.go", true},
		{"src/**/*.ts", "src/x.ts", true},
		{"src/**/*.ts", "src/a/b/x.ts", true},
		{"src/**/*.ts", "lib/x.ts", false},
		{"**/*.{ts,tsx}", "web/app.tsx", true},
		{"**/*.{ts,tsx}", "web/app.js", false},
		{"{cmd,internal}/**/*_test.go", "internal/x/y_test.go", true},
		{"cmd/*/main.go", "cmd/atomic/main.go", true},
		{"cmd/*/main.go", "cmd/a/b/main.go", false},
		{"file?.txt", "file1.txt", true},
		{"[ab]*.md", "b-notes.md", true},
		{"**", "any/thing", true},
		{"**", "top.txt", true},
		{"**/x/*.go", "x/x/a.go", true},
		{"**/x/*.go", "a/x/b/c.go", false},
		{"src/**", "src/a/b.c", true},
		{"a{b,c{d,e}}f{1,2}", "acef2", true},
		{"a{b,c{d,e}}f{1,2}", "acf1", false},
		{"{a/b,c}/*.go", "a/b/x.go", true},
		{"{a/b,c}/*.go", "c/x.go", true},
		{"*.[ch]", "util.h", true},
		{"*.[ch]", "util.o", false},
		{"file[0-9].txt", "file7.txt", true},
		{"file[!0-9].txt", "fileA.txt", true},
		{"file[!0-9].txt", "file7.txt", false},
		{"file[^0-9].txt", "file7.txt", false},
		{`weird\*name.txt`, "weird*name.txt", true},
		{`weird\*name.txt`, "weirdXname.txt", false},
		{"*.go", ".hidden.go", true},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("compileGlob(%q): %v", tt.pattern, err)
		}
		if got := g.match(tt.path); got != tt.match {
			t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.path, got, tt.match)
		}
	}
}

func TestGlobPatternPrunesDirectoriesThatCannotMatch(t *testing.T) {
	tests := []struct {
		pattern, dir string
		descend      bool
	}{
		{"*.go", "sub", false},
		{"src/*.go", "src", true},
		{"src/*.go", "src/deeper", false},
		{"src/*.go", "lib", false},
		{"src/**/*.go", "src/a/b", true},
		{"a/**", "a/b/c", true},
		{"**/x.go", "anything/at/all", true},
		{"{src,lib}/*.go", "lib", true},
		{"{src,lib}/*.go", "doc", false},
		{"[a-c]*/*.go", "b2", true},
		{"[a-c]*/*.go", "z", false},
		{"{a/b,c}/*.go", "a/b", true}, // braces spanning "/": always descend
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.canDescend(tt.dir); got != tt.descend {
			t.Errorf("%q descend into %q = %v, want %v", tt.pattern, tt.dir, got, tt.descend)
		}
	}
}

func TestGlobPatternRefusesMalformedPatterns(t *testing.T) {
	for _, bad := range []string{"a{b", "[", "x[a-", `end\`} {
		if _, err := compileGlob(bad); err == nil {
			t.Errorf("compileGlob(%q) succeeded", bad)
		}
	}
	// Many brace groups are matched without expanding them all.
	g, err := compileGlob("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}")
	if err != nil {
		t.Fatal(err)
	}
	if !g.match("bdfhjlnpr") || g.match("bdfhjlnpx") {
		t.Error("nine brace groups matched wrongly")
	}
}

func TestLiteralPrefixPicksTheFolderToWalk(t *testing.T) {
	tests := []struct{ pattern, dir, rest string }{
		{"*.go", "", "*.go"},
		{"cmd/*/main.go", "cmd", "*/main.go"},
		{"internal/tools/**/*.go", "internal/tools", "**/*.go"},
		{"a/b/c.go", "a/b", "c.go"},
		{"/abs/x/*.go", "/abs/x", "*.go"},
		{"{a,b}/x.go", "", "{a,b}/x.go"},
		{`odd\[dir/*.md`, "odd[dir", "*.md"},
	}
	for _, tt := range tests {
		if dir, rest := literalPrefix(tt.pattern); dir != tt.dir || rest != tt.rest {
			t.Errorf("literalPrefix(%q) = %q, %q; want %q, %q", tt.pattern, dir, rest, tt.dir, tt.rest)
		}
	}
}
