package spawn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/dotdirs"
)

var known = []string{"read", "write", "edit", "multi_edit", "bash", "glob", "grep", "ls", "web_fetch", "todo_write"}

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
	reg, problems := LoadTypes(dotdirs.Paths(dotdirs.Find("agents", dotdirs.Places{Dir: root, ConfigDir: user})), known)
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

func TestUnreadableAgentFileIsReportedWithPathAndLineAndSkipped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".atomic", "agents")
	cases := map[string]struct {
		content string
		line    int
		want    string
	}{
		"unclosed.md": {"---\nname: x\n", 1, "not closed"},
		"badyaml.md":  {"---\n  name: [x\n - y\n---\n", 0, "bad front matter"},
		"notamap.md":  {"---\n- a\n- b\n---\n", 0, "key: value"},
	}
	for name, c := range cases {
		write(t, dir, name, c.content)
	}
	reg, problems := LoadTypes([]string{dir}, known)
	if len(problems) != len(cases) {
		t.Fatalf("got %d problems, want %d: %v", len(problems), len(cases), problems)
	}
	for _, p := range problems {
		var fe *AgentFileError
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

// What Atomic lacks or cannot read in an otherwise usable file is named in
// one warning with the path and line, and the file still loads.
func TestIncompleteAgentFileLoadsWithOneWarningNamingPathAndLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".atomic", "agents")
	cases := map[string]struct {
		content string
		line    int
		want    string
	}{
		"nofm.md":    {"just text\n", 1, "no YAML front matter"},
		"unknown.md": {"---\nname: unknown\ndescription: d\ncolour: red\n---\n", 4, "fields colour"},
		"badtool.md": {"---\nname: badtool\ndescription: d\ntools: read, fly\n---\n", 4, "tools fly"},
		"noname.md":  {"---\ndescription: d\n---\n", 1, "no name"},
		"nodesc.md":  {"---\nname: nodesc\n---\nReviews diffs.\n", 2, "no description"},
	}
	for name, c := range cases {
		write(t, dir, name, c.content)
	}
	reg, problems := LoadTypes([]string{dir}, known)
	if len(problems) != len(cases) {
		t.Fatalf("got %d problems, want %d: %v", len(problems), len(cases), problems)
	}
	for _, p := range problems {
		var w *AgentFileWarning
		if !errors.As(p, &w) {
			t.Fatalf("not a Warning: %v", p)
		}
		c := cases[filepath.Base(w.Path)]
		if !strings.Contains(p.Error(), c.want) || !strings.Contains(p.Error(), fmt.Sprintf("%s:%d:", w.Path, c.line)) {
			t.Errorf("%q should name %s:%d and mention %q", p, w.Path, c.line, c.want)
		}
	}
	for name := range cases {
		if _, ok := reg.Get(strings.TrimSuffix(name, ".md")); !ok {
			t.Errorf("%s was not loaded: %v", name, reg.Names())
		}
	}
	if d, _ := reg.Get("nodesc"); d.Description != "Reviews diffs." {
		t.Errorf("description taken from the prompt = %q", d.Description)
	}
	if b, _ := reg.Get("badtool"); strings.Join(b.Tools, ",") != "read" {
		t.Errorf("badtool tools = %v, want the known ones", b.Tools)
	}
}

func TestUnknownTypeErrorListsKnownOnes(t *testing.T) {
	_, err := NewRegistry().Lookup("wizard")
	if err == nil || !strings.Contains(err.Error(), "explore") || !strings.Contains(err.Error(), "general-purpose") {
		t.Fatalf("err = %v", err)
	}
}

// TestIsolationAndRunsOnInAnAgentFile: isolation: worktree isolates the
// type; runs_on: workers sends it to remote workers; other values are
// ignored with a warning naming them.
func TestIsolationRunsOnAndEffortInAnAgentFile(t *testing.T) {
	isolation := func(t Type) string { return t.Isolation }
	runsOn := func(t Type) string { return t.RunsOn }
	effort := func(t Type) string { return string(t.Effort) }
	cases := []struct {
		line  string
		field func(Type) string
		want  string
		// warning is a substring of the file's warning; "" for none.
		warning string
	}{
		{"isolation: worktree", isolation, Worktree, ""},
		{"isolation: Worktree", isolation, Worktree, ""},
		{"isolation: none", isolation, "", `isolation "none" (only worktree is supported)`},
		{"runs_on: workers", runsOn, Workers, ""},
		{"runs_on: Workers", runsOn, Workers, ""},
		{"runs_on: local", runsOn, "", ""},
		{"runs_on: cloud", runsOn, "", `runs_on "cloud" (only workers is supported)`},
		{"effort: high", effort, "high", ""},
		{"effort: Max", effort, "max", ""},
		{"effort: xhigh", effort, "", `effort "xhigh" (one of low, medium, high, max; the lead's level is inherited)`},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			p := write(t, t.TempDir(), "fixer.md", "---\nname: fixer\ndescription: Fixes\n"+c.line+"\n---\nFix it.\n")
			data, _ := os.ReadFile(p)
			typ, warn, err := ParseType(p, data, known)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.field(typ); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			switch {
			case c.warning == "" && warn != nil:
				t.Errorf("unexpected warning: %v", warn)
			case c.warning != "" && (warn == nil || !strings.Contains(warn.Error(), c.warning)):
				t.Errorf("warning %v, want one naming %s", warn, c.warning)
			}
		})
	}
}

func TestAnAgentFilesHooksAreReadAndWhatCannotRunIsNamed(t *testing.T) {
	typ, warn, err := ParseType("/p/.claude/agents/guarded.md", []byte(`---
name: guarded
description: d
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - {type: command, command: ./guard.sh, timeout: 5}
  Nonsense:
    - hooks: [{type: command, command: "true"}]
---
body
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if typ.Hooks.Count() != 1 {
		t.Fatalf("hooks = %+v, want the one PreToolUse command", typ.Hooks)
	}
	if warn == nil || !strings.Contains(warn.Error(), "Nonsense") {
		t.Errorf("the unknown hook event is not named: %v", warn)
	}
	_, warn, err = ParseType("/p/a.md", []byte("---\nname: a\ndescription: d\nhooks: ./guard.sh\n---\nbody\n"), nil)
	if err != nil || warn == nil || !strings.Contains(warn.Error(), "hooks (not a mapping") {
		t.Errorf("hooks that are not a mapping: %v %v", warn, err)
	}
}
