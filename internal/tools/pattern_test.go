package tools

import (
	"slices"
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

func TestExpandBraces(t *testing.T) {
	got, err := expandBraces("a{b,c{d,e}}f{1,2}")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"abf1", "abf2", "acdf1", "acdf2", "acef1", "acef2"}
	if !slices.Equal(got, want) {
		t.Fatalf("expandBraces = %v, want %v", got, want)
	}
	for _, bad := range []string{"a{b", "a}b", "[", "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}"} {
		if _, err := compileGlob(bad); err == nil {
			t.Errorf("compileGlob(%q) succeeded", bad)
		}
	}
}
