package commands

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

var builtins = []string{"/help", "/clear", "/model", "/memory"}

func TestLoadFindsCommandsInProjectAndUserFoldersProjectWinning(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"home/.claude/commands/review.md":        "---\ndescription: user review\n---\nUser review",
		"home/.claude/commands/mine.md":          "My own command",
		"config/atomic/commands/standup.md":      "# Write the standup\nFrom git log.",
		"proj/.claude/commands/review.md":        "---\ndescription: project review\nargument-hint: [pr-number] [priority]\n---\nReview PR $1 at priority $2",
		"proj/.claude/commands/frontend/comp.md": "---\ndescription: \"Make a component\"\n---\nMake $ARGUMENTS",
		"proj/.atomic/commands/fix.md":           "---\ndescription: Fix an issue\nargument-hint: [issue]\n---\nFix issue $ARGUMENTS",
		"proj/.atomic/commands/notes.txt":        "not a command",
	})
	s, problems := Load(Dirs(filepath.Join(root, "proj"), filepath.Join(root, "home"), filepath.Join(root, "config", "atomic")), builtins)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	var got []string
	for _, c := range s.All() {
		got = append(got, c.Name+" | "+c.Scope+" | "+c.Description+" | "+c.ArgumentHint)
	}
	want := []string{
		"fix | project | Fix an issue | [issue]",
		"frontend:comp | project | Make a component | ",
		"mine | user | My own command | ",
		"review | project | project review | [pr-number] [priority]",
		"standup | user | Write the standup | ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Run from a subfolder of a repository, the root's commands are found
// as Claude Code finds them, and a nearer folder's command of a name wins.
func TestCommandsAreFoundUpToTheRepositoryRootTheNearestWinning(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		".git/HEAD":                        "ref: refs/heads/main\n",
		".claude/commands/deploy.md":       "---\ndescription: root deploy\n---\nDeploy",
		".claude/commands/test.md":         "---\ndescription: root test\n---\nTest",
		"svc/.claude/commands/test.md":     "---\ndescription: svc test\n---\nTest svc",
		"svc/api/.atomic/commands/lint.md": "---\ndescription: api lint\n---\nLint",
	})
	s, problems := Load(Dirs(filepath.Join(root, "svc", "api"), "", ""), builtins)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	var got []string
	for _, c := range s.All() {
		got = append(got, c.Name+" | "+c.Description)
	}
	if want := "deploy | root deploy\nlint | api lint\ntest | svc test"; strings.Join(got, "\n") != want {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

func TestLoadReportsAndSkipsBadCommandFiles(t *testing.T) {
	tests := []struct {
		name, file, content, want string
	}{
		{"front matter never closed", "open.md", "---\ndescription: x\nFix it", "open.md: line 1: front matter is not closed by a --- line"},
		{"front matter that is a list", "list.md", "---\n- a\n- b\n---\nbody", "list.md: bad front matter: front matter must be key: value lines"},
		{"a field that is a mapping", "map.md", "---\ndescription:\n  a: b\n---\nbody", "map.md: line 2: description is not text or a list"},
		{"no body", "empty.md", "---\ndescription: nothing\n---\n", "empty.md: the command has no prompt"},
		{"a built-in's name", "help.md", "my help", "help.md: /help is a built-in command; this one is skipped"},
		{"a name with spaces", "my cmd.md", "body", `my cmd.md: the command name "my cmd" has spaces`},
		{"bytes that are not UTF-8", "bin.md", "ok\n\xff\xfe", "bin.md: line 2: not UTF-8 text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			testkit.WriteFiles(t, root, map[string]string{".atomic/commands/" + tt.file: tt.content, ".atomic/commands/ok.md": "fine"})
			s, problems := Load(Dirs(root, "", ""), builtins)
			if len(problems) != 1 || !strings.Contains(problems[0].Error(), filepath.Join(root, ".atomic", "commands", tt.want)) {
				t.Fatalf("problems %q, want one containing %q", problems, tt.want)
			}
			if _, ok := s.Lookup("ok"); !ok || len(s.All()) != 1 {
				t.Errorf("commands %+v, want only ok", s.All())
			}
		})
	}
}

func TestExpandFillsArguments(t *testing.T) {
	tests := []struct {
		name, prompt, args, want string
	}{
		{"all arguments", "Fix issue $ARGUMENTS now", "#12 quickly", "Fix issue #12 quickly now"},
		{"positional", "PR $1, priority $2, owner $3", `42 high "Ann Lee"`, "PR 42, priority high, owner Ann Lee"},
		{"missing positional is empty", "A=$1 B=$2", "x", "A=x B="},
		{"both", "$1: $ARGUMENTS", "a b", "a: a b"},
		{"no placeholder: arguments appended", "Summarise the diff", "briefly", "Summarise the diff\n\nARGUMENTS: briefly"},
		{"no placeholder, no arguments", "Summarise the diff", "", "Summarise the diff"},
		{"other dollars stay", "cost $5 and $HOME and $10", "x", "cost  and $HOME and $10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Command{Prompt: tt.prompt}).Expand(tt.args); got != tt.want {
				t.Errorf("Expand(%q) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestSetExpandResolvesTypedCommands(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{".claude/commands/fix.md": "Fix $ARGUMENTS", ".claude/commands/fe/comp.md": "Component $1"})
	s, _ := Load(Dirs(root, "", ""), builtins)
	tests := []struct {
		text, want string
		ok         bool
	}{
		{"/fix the login bug", "Fix the login bug", true},
		{"/FIX  two  spaces ", "Fix two  spaces", true},
		{"/fe:comp Button", "Component Button", true},
		{"/fix\nline two", "Fix line two", true},
		{"/unknown x", "", false},
		{"/help", "", false},
		{"fix it", "", false},
	}
	for _, tt := range tests {
		got, ok := s.Expand(tt.text)
		if ok != tt.ok || got != tt.want {
			t.Errorf("Expand(%q) = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAllowedToolsListsKeepScopedRulesWhole(t *testing.T) {
	for in, want := range map[string]string{
		"Bash(git add:*), Bash(git commit:*), Read": "Bash(git add:*)|Bash(git commit:*)|Read",
		"[Read, Grep]":                   "Read|Grep",
		"Read Write":                     "Read|Write",
		"Bash(git status), Bash(ls -la)": "Bash(git status)|Bash(ls -la)",
		"":                               "",
	} {
		if got := strings.Join(ToolList(in), "|"); got != want {
			t.Errorf("ToolList(%q) = %q, want %q", in, got, want)
		}
	}
}
