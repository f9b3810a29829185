package spawn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// Claude Code agent files, in every shape its documentation shows and as
// public projects write them, load unchanged: Claude Code's tool names
// and fields are mapped, what Atomic lacks is named in one warning per
// file, and nothing is rejected for it.
func TestClaudeCodeAgentFilesLoadUnchanged(t *testing.T) {
	cases := []struct {
		file     string
		name     string
		desc     []string // substrings of the description
		tools    []string // nil: every tool
		model    string
		prompt   string   // prefix of the prompt
		warnings []string // substrings of the file's one warning; none when empty
	}{
		{"doc-minimal.md", "code-reviewer", []string{"Expert code review specialist", "modifying code."}, nil, "", "You are a senior code reviewer", nil},
		{"doc-tools-comma.md", "debugger", []string{"Debugging specialist"}, []string{"read", "edit", "bash", "grep", "glob"}, "sonnet", "You are an expert debugger", nil},
		{"doc-tools-list.md", "data-scientist", []string{"Data analysis expert"}, []string{"bash", "read", "write"}, "", "You are a data scientist", nil},
		{"doc-all-fields.md", "db-reader", []string{"read-only database queries"}, []string{"bash", "read", "grep", "glob"}, "opus", "You are a database analyst",
			[]string{"doc-all-fields.md:7:", "permissionMode", "maxTurns", "mcpServers", "memory", "background"}},
		{"examples-inline.md", "migration-helper", []string{"Examples: <example>Context: The user added a column", "user: 'I added an email column", "</commentary></example>"}, nil, "", "You write database migrations", nil},
		{"examples-escaped.md", "release-notes-writer", []string{"last tag.\n\n<example>\nContext: A release branch", "\nuser: \"Write the release notes for 2.4\"\n", "</example>"},
			[]string{"bash", "read", "grep", "glob", "web_fetch", "todo_write"}, "sonnet", "You draft release notes", nil},
		{"examples-multiline.md", "perf-auditor", []string{"N+1 queries. It measures", "\n\nExamples:\n<example>\nContext: A page became slow", "user: \"Is this parser fast enough", "Let me run the perf-auditor agent on the parser\"\n</example>"},
			nil, "opus", "You are a performance engineer", nil},
		{"block-scalar.md", "pr-shepherd", []string{"Use this agent to take a pull request", "<example>\nuser: \"Address the review comments"},
			[]string{"read", "edit", "multi_edit", "bash", "mcp__github__get_pull_request", "web_fetch"}, "claude-sonnet-4-5-20250929", "You shepherd pull requests",
			[]string{"Bash(git status:*), Bash(git diff:*)", "permission rules still apply"}},
		{"no-frontmatter.md", "no-frontmatter", []string{"Security reviewer"}, nil, "", "# Security reviewer", []string{"no YAML front matter"}},
		{"no-name.md", "no-name", []string{"Writes and fixes Go table-driven tests."}, []string{"read", "write", "edit", "bash"}, "", "You write Go tests.", []string{"no-name.md:1:", "no name"}},
		{"task-and-todo.md", "planner", []string{"Breaks a large change"}, []string{"task", "read", "grep", "glob", "todo_write", "ls"}, "haiku", "You plan.", []string{"tools NotebookRead, BashOutput, KillShell"}},
	}
	dir := filepath.Join("testdata", "claude")
	reg, problems := LoadTypes([]string{dir}, known)
	warnings := map[string]string{}
	for _, p := range problems {
		var w *AgentFileWarning
		if !errors.As(p, &w) {
			t.Fatalf("a Claude Code file was rejected: %v", p)
		}
		if _, dup := warnings[filepath.Base(w.Path)]; dup {
			t.Errorf("%s has more than one warning", w.Path)
		}
		warnings[filepath.Base(w.Path)] = p.Error()
	}
	if len(reg.Names()) != 2+len(cases) {
		t.Fatalf("loaded %d types %v, want the 2 built-ins and %d files", len(reg.Names()), reg.Names(), len(cases))
	}
	if typ, _ := reg.Lookup("db-reader"); typ.Effort != "high" {
		t.Errorf("effort: high in a Claude Code file gave %q", typ.Effort)
	}
	if typ, _ := reg.Lookup("db-reader"); typ.Hooks.Count() != 1 {
		t.Errorf("the documented file's PreToolUse hook was not read: %+v", typ.Hooks)
	}
	if typ, _ := reg.Lookup("db-reader"); strings.Join(typ.Skills, ",") != "sql-style,reporting" || strings.Contains(warnings["doc-all-fields.md"], "skills") {
		t.Errorf("skills: in a Claude Code file gave %q (warning %q), want sql-style,reporting read and not named ignored", typ.Skills, warnings["doc-all-fields.md"])
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			typ, err := reg.Lookup(c.name)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range c.desc {
				if !strings.Contains(typ.Description, d) {
					t.Errorf("description %q lacks %q", typ.Description, d)
				}
			}
			if (typ.Tools == nil) != (c.tools == nil) || strings.Join(typ.Tools, ",") != strings.Join(c.tools, ",") {
				t.Errorf("tools = %#v, want %#v", typ.Tools, c.tools)
			}
			if typ.Model != c.model {
				t.Errorf("model = %q, want %q", typ.Model, c.model)
			}
			if !strings.HasPrefix(typ.Prompt, c.prompt) {
				t.Errorf("prompt = %q, want it to start with %q", typ.Prompt, c.prompt)
			}
			w, warned := warnings[c.file]
			if warned != (len(c.warnings) > 0) {
				t.Fatalf("warning = %q, want one mentioning %q", w, c.warnings)
			}
			for _, s := range c.warnings {
				if !strings.Contains(w, s) {
					t.Errorf("warning %q does not mention %q", w, s)
				}
			}
		})
	}
}

func TestClaudeToolNamesMapToAtomicTools(t *testing.T) {
	cases := []struct {
		entry, name, scope string
		ok                 bool
	}{
		{"Read", "read", "", true},
		{"read", "read", "", true},
		{"MultiEdit", "multi_edit", "", true},
		{"LS", "ls", "", true},
		{" Bash(git add:*) ", "bash", "git add:*", true},
		{"Bash(npm run test:*)", "bash", "npm run test:*", true},
		{"WebFetch(domain:go.dev)", "web_fetch", "domain:go.dev", true},
		{"WebSearch", "", "", false},
		{"mcp__github__create_issue", "mcp__github__create_issue", "", true},
		{"mcp__GitHub", "mcp__GitHub", "", true},
		{"Task(explore)", "task", "explore", true}, // given whole, with the scope warning
		{"Agent", "task", "", true},
	}
	for _, c := range cases {
		name, scope, ok := mapTool(c.entry, known)
		if name != c.name || scope != c.scope || ok != c.ok {
			t.Errorf("mapTool(%q) = %q, %q, %v; want %q, %q, %v", c.entry, name, scope, ok, c.name, c.scope, c.ok)
		}
	}
	for m, want := range map[string]string{"inherit": "", "": "", "Sonnet": "sonnet", "opus": "opus", "haiku": "haiku", "opusplan": "opus", "sonnet[1m]": "sonnet", "claude-opus-4-6": "claude-opus-4-6", "gpt-4.1": "gpt-4.1"} {
		if got := claudeModel(m); got != want {
			t.Errorf("claudeModel(%q) = %q, want %q", m, got, want)
		}
	}
}

func TestDisabledAgentFileIsNotRegistered(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "off.md", "---\nname: off\ndescription: d\ndisabled: true\n---\n")
	reg, problems := LoadTypes([]string{dir}, known)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	if _, ok := reg.Get("off"); ok {
		t.Fatal("a disabled agent was registered")
	}
}

func TestAgentFileWithSpacesInItsNameIsLoadedUnderAHyphenatedName(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "x.md", "---\nname: Code Reviewer\ndescription: d\n---\n")
	reg, problems := LoadTypes([]string{dir}, known)
	if _, ok := reg.Get("code-reviewer"); !ok {
		t.Fatalf("not loaded as code-reviewer: %v %v", reg.Names(), problems)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), `"Code Reviewer"`) {
		t.Fatalf("want one warning naming the original name: %v", problems)
	}
}

// The fixtures must stay as Claude Code users write them: the ones whose
// front matter is not valid YAML really are not.
func TestFixturesIncludeFrontMatterThatIsNotValidYAML(t *testing.T) {
	for _, f := range []string{"examples-inline.md", "examples-escaped.md", "examples-multiline.md"} {
		data, err := os.ReadFile(filepath.Join("testdata", "claude", f))
		if err != nil {
			t.Fatal(err)
		}
		head := strings.SplitN(string(data), "\n---", 2)[0][4:]
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(head), &doc); err == nil && f != "examples-multiline.md" {
			t.Errorf("%s parses as YAML; it should exercise the line-by-line reader", f)
		}
	}
}
