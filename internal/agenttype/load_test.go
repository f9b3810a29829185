package agenttype

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var known = []string{"read", "write", "edit", "bash", "glob", "grep", "ls"}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadReadsCustomTypesFromProjectAndUserFolders(t *testing.T) {
	root, user := t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, ".atomic", "agents"), "reviewer.md", "---\nname: reviewer\ndescription: Reviews diffs\ntools: read, grep\nmodel: claude-x\n---\nYou review code.\n")
	write(t, filepath.Join(root, ".claude", "agents"), "tester.md", "---\nname: tester\ndescription: Runs tests\ntools: [bash, read]\n---\nRun the tests.\n")
	write(t, filepath.Join(user, "agents"), "reviewer.md", "---\nname: reviewer\ndescription: user version\n---\n")
	reg, problems := Load(Dirs(root, user), known)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	r, err := reg.Lookup("reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if r.Description != "Reviews diffs" || strings.Join(r.Tools, ",") != "read,grep" || r.Model != "claude-x" || r.Prompt != "You review code." {
		t.Fatalf("project file should win over user file: %+v", r)
	}
	if !strings.HasSuffix(r.Source, filepath.Join(".atomic", "agents", "reviewer.md")) {
		t.Fatalf("source = %q", r.Source)
	}
	tt, _ := reg.Lookup("Tester")
	if strings.Join(tt.Tools, ",") != "bash,read" {
		t.Fatalf("list form of tools: %+v", tt)
	}
	if _, err := reg.Lookup(""); err != nil {
		t.Fatal("empty type defaults to general-purpose")
	}
}

func TestMalformedAgentFileIsReportedWithPathAndLineAndSkipped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".atomic", "agents")
	cases := map[string]struct {
		content string
		line    int
		want    string
	}{
		"nofm.md":     {"just text\n", 1, "missing YAML front matter"},
		"unclosed.md": {"---\nname: x\n", 1, "not closed"},
		"badyaml.md":  {"---\nname: x\ndescription: [oops\n---\n", 0, "bad front matter"},
		"unknown.md":  {"---\nname: x\ndescription: d\ncolour: red\n---\n", 4, "colour"},
		"badtool.md":  {"---\nname: x\ndescription: d\ntools: read, fly\n---\n", 4, `unknown tool "fly"`},
		"noname.md":   {"---\ndescription: d\n---\n", 1, "needs a name"},
		"nodesc.md":   {"---\nname: x\n---\n", 2, "needs a description"},
	}
	for name, c := range cases {
		write(t, dir, name, c.content)
	}
	reg, problems := Load([]string{dir}, known)
	if len(problems) != len(cases) {
		t.Fatalf("got %d problems, want %d: %v", len(problems), len(cases), problems)
	}
	for _, p := range problems {
		var fe *FileError
		if !errors.As(p, &fe) {
			t.Fatalf("not a FileError: %v", p)
		}
		c := cases[filepath.Base(fe.Path)]
		if !strings.Contains(p.Error(), c.want) {
			t.Errorf("%s: %q does not mention %q", fe.Path, p, c.want)
		}
		if c.line != 0 && fe.Line != c.line {
			t.Errorf("%s: line %d, want %d (%v)", fe.Path, fe.Line, c.line, p)
		}
		if !strings.Contains(p.Error(), fe.Path) {
			t.Errorf("error should name the path: %q", p)
		}
	}
	if len(reg.Names()) != 2 {
		t.Fatalf("only built-ins should remain: %v", reg.Names())
	}
}

func TestUnknownTypeErrorListsKnownOnes(t *testing.T) {
	_, err := NewRegistry().Lookup("wizard")
	if err == nil || !strings.Contains(err.Error(), "explore") || !strings.Contains(err.Error(), "general-purpose") {
		t.Fatalf("err = %v", err)
	}
}
