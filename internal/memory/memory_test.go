package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// tree writes files under root: a value of "<dir>" makes a folder; {root}
// in a content is replaced by root.
func tree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	plain := map[string]string{}
	for p, c := range files {
		if c == "<dir>" {
			if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		plain[p] = strings.ReplaceAll(c, "{root}", root)
	}
	testkit.WriteFiles(t, root, plain)
}

// loaded names each loaded file relative to root, "<importer" appended for
// an import.
func loaded(root string, m *Memory) []string {
	var out []string
	for _, f := range m.Files {
		s, _ := filepath.Rel(root, f.Path)
		if f.ImportedBy != "" {
			by, _ := filepath.Rel(root, f.ImportedBy)
			s += "<" + by
		}
		out = append(out, s)
	}
	return out
}

func TestLoadReadsMemoryFilesInEveryPlaceAndImportShape(t *testing.T) {
	deep := map[string]string{"repo/.git": "<dir>", "repo/CLAUDE.md": "@d1.md"}
	for i := 1; i <= 6; i++ {
		deep["repo/d"+string(rune('0'+i))+".md"] = "@d" + string(rune('1'+i)) + ".md"
	}
	deep["repo/d6.md"] = "the sixth"
	tests := []struct {
		name     string
		files    map[string]string
		dir      string // the working directory, under root
		want     []string
		problems []string // substrings, {root} replaced, in order
	}{
		{
			name: "every place, from the working directory up to the repository root, then the user's",
			files: map[string]string{
				"CLAUDE.md": "above the repository: not read", "repo/.git": "<dir>",
				"repo/AGENTS.md": "a", "repo/CLAUDE.md": "c", "repo/.claude/CLAUDE.md": "dc", "repo/CLAUDE.local.md": "l",
				"repo/sub/AGENTS.md": "sa", "repo/sub/CLAUDE.local.md": "sl",
				"repo/.claude/rules/testing.md": "t", "repo/.claude/rules/api/errors.md": "---\npaths: [\"internal/**/*.go\"]\n---\ne",
				"home/.claude/CLAUDE.md": "u", "home/.claude/rules/style.md": "s", "config/atomic/AGENTS.md": "ua",
				"etc/claude-code/CLAUDE.md": "m",
			},
			dir: "repo/sub",
			want: []string{"repo/sub/AGENTS.md", "repo/sub/CLAUDE.local.md", "repo/AGENTS.md", "repo/CLAUDE.md",
				"repo/.claude/CLAUDE.md", "repo/.claude/rules/api/errors.md", "repo/.claude/rules/testing.md", "repo/CLAUDE.local.md",
				"home/.claude/CLAUDE.md", "home/.claude/rules/style.md", "config/atomic/AGENTS.md", "etc/claude-code/CLAUDE.md"},
		},
		{
			name:     "a rules file with malformed front matter is skipped",
			files:    map[string]string{"repo/.git": "<dir>", "repo/.claude/rules/bad.md": "---\npaths: [a\nno end", "repo/.claude/rules/good.md": "g"},
			dir:      "repo",
			want:     []string{"repo/.claude/rules/good.md"},
			problems: []string{"{root}/repo/.claude/rules/bad.md: line 1: front matter is not closed by a --- line"},
		},
		{
			name:  "a .git file (worktree) marks the repository root",
			files: map[string]string{"CLAUDE.md": "no", "wt/.git": "gitdir: x", "wt/CLAUDE.md": "yes", "wt/a/b/AGENTS.md": "b"},
			dir:   "wt/a/b",
			want:  []string{"wt/a/b/AGENTS.md", "wt/CLAUDE.md"},
		},
		{
			name:  "outside a repository only the working directory is read",
			files: map[string]string{"plain/CLAUDE.md": "parent", "plain/sub/CLAUDE.md": "here"},
			dir:   "plain/sub",
			want:  []string{"plain/sub/CLAUDE.md"},
		},
		{
			name: "relative, home and absolute imports, each after its importer",
			files: map[string]string{"repo/.git": "<dir>",
				"repo/CLAUDE.md":     "See @docs/style.md and @~/notes.md.\nAlso @{root}/abs/rules.md",
				"repo/docs/style.md": "style", "home/notes.md": "notes", "abs/rules.md": "rules"},
			dir:  "repo",
			want: []string{"repo/CLAUDE.md", "repo/docs/style.md<repo/CLAUDE.md", "home/notes.md<repo/CLAUDE.md", "abs/rules.md<repo/CLAUDE.md"},
		},
		{
			name: "nested imports resolve against the importing file's folder",
			files: map[string]string{"repo/.git": "<dir>", "repo/AGENTS.md": "@docs/a.md",
				"repo/docs/a.md": "@./b.md", "repo/docs/b.md": "@../c.md", "repo/c.md": "c"},
			dir:  "repo",
			want: []string{"repo/AGENTS.md", "repo/docs/a.md<repo/AGENTS.md", "repo/docs/b.md<repo/docs/a.md", "repo/c.md<repo/docs/b.md"},
		},
		{
			name:     "a cycle is reported and the files of it load once",
			files:    map[string]string{"repo/.git": "<dir>", "repo/CLAUDE.md": "@a.md", "repo/a.md": "x\n@b.md", "repo/b.md": "@a.md"},
			dir:      "repo",
			want:     []string{"repo/CLAUDE.md", "repo/a.md<repo/CLAUDE.md", "repo/b.md<repo/a.md"},
			problems: []string{"{root}/repo/b.md:1: import cycle"},
		},
		{
			name:     "a missing import names the importing file and line; the rest loads",
			files:    map[string]string{"repo/.git": "<dir>", "repo/CLAUDE.md": "one\n@nope.md\n@yes.md", "repo/yes.md": "y"},
			dir:      "repo",
			want:     []string{"repo/CLAUDE.md", "repo/yes.md<repo/CLAUDE.md"},
			problems: []string{"{root}/repo/CLAUDE.md:2: import @{root}/repo/nope.md: no such file"},
		},
		{
			name: "imports in fenced code blocks and code spans are text",
			files: map[string]string{"repo/.git": "<dir>",
				"repo/CLAUDE.md": "```sh\nnpm i @types/node\n```\n~~~\n@x.md\n~~~\nUse `@y.md` or ``a ` @z.md``.\n@real.md",
				"repo/real.md":   "r"},
			dir:  "repo",
			want: []string{"repo/CLAUDE.md", "repo/real.md<repo/CLAUDE.md"},
		},
		{
			name:  "email addresses are not imports",
			files: map[string]string{"repo/.git": "<dir>", "repo/CLAUDE.md": "Ask user@example.com or (ops@corp.io)."},
			dir:   "repo",
			want:  []string{"repo/CLAUDE.md"},
		},
		{
			name: "escaped spaces, #fragments and trailing punctuation",
			files: map[string]string{"repo/.git": "<dir>", "repo/CLAUDE.md": `Read @my\ notes.md#setup, then @b.md.`,
				"repo/my notes.md": "n", "repo/b.md": "b"},
			dir:  "repo",
			want: []string{"repo/CLAUDE.md", "repo/my notes.md<repo/CLAUDE.md", "repo/b.md<repo/CLAUDE.md"},
		},
		{
			name:  "a file imported again (CLAUDE.md importing AGENTS.md) loads once, quietly",
			files: map[string]string{"repo/.git": "<dir>", "repo/AGENTS.md": "a", "repo/CLAUDE.md": "@AGENTS.md"},
			dir:   "repo",
			want:  []string{"repo/AGENTS.md", "repo/CLAUDE.md"},
		},
		{
			name:     "imports are followed five levels deep, no further",
			files:    deep,
			dir:      "repo",
			want:     []string{"repo/CLAUDE.md", "repo/d1.md<repo/CLAUDE.md", "repo/d2.md<repo/d1.md", "repo/d3.md<repo/d2.md", "repo/d4.md<repo/d3.md", "repo/d5.md<repo/d4.md"},
			problems: []string{"{root}/repo/d5.md:1: import @d6.md not followed: imports are followed at most 5 levels deep"},
		},
		{
			name:     "a file that is not UTF-8 is skipped with its path",
			files:    map[string]string{"repo/.git": "<dir>", "repo/AGENTS.md": "fine", "repo/CLAUDE.md": "caf\xe9"},
			dir:      "repo",
			want:     []string{"repo/AGENTS.md"},
			problems: []string{"{root}/repo/CLAUDE.md: not valid UTF-8 text"},
		},
		{
			name:     "a folder named CLAUDE.md, or imported, is skipped",
			files:    map[string]string{"repo/.git": "<dir>", "repo/CLAUDE.md": "<dir>", "repo/AGENTS.md": "@docs", "repo/docs": "<dir>"},
			dir:      "repo",
			want:     []string{"repo/AGENTS.md"},
			problems: []string{"{root}/repo/AGENTS.md:1: import @{root}/repo/docs: is a directory", "{root}/repo/CLAUDE.md: is a directory"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tree(t, root, tt.files)
			m := Load(Places{Dir: filepath.Join(root, tt.dir), Home: filepath.Join(root, "home"), ConfigDir: filepath.Join(root, "config", "atomic"),
				Managed: filepath.Join(root, "etc", "claude-code", "CLAUDE.md")})
			if got := loaded(root, m); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("loaded:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if len(m.Problems) != len(tt.problems) {
				t.Fatalf("problems %q, want %d like %q", m.Problems, len(tt.problems), tt.problems)
			}
			for i, p := range tt.problems {
				if want := strings.ReplaceAll(p, "{root}", root); !strings.Contains(m.Problems[i].Error(), want) {
					t.Errorf("problem %d = %q, want it to contain %q", i, m.Problems[i], want)
				}
			}
		})
	}
}

func TestLoadCutsAFileOverTheSizeCapAndSaysSo(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("é", MaxFileSize) // two bytes each: the cut falls inside none
	tree(t, root, map[string]string{"CLAUDE.md": "x" + big})
	m := Load(Places{Dir: root})
	if len(m.Files) != 1 || len(m.Files[0].Content) > MaxFileSize || len(m.Files[0].Content) < MaxFileSize-1 {
		t.Fatalf("files %d, content %d bytes; want one of about %d", len(m.Files), len(m.Files[0].Content), MaxFileSize)
	}
	if !strings.HasSuffix(m.Files[0].Content, "é") {
		t.Errorf("cut inside a character: ends %q", m.Files[0].Content[len(m.Files[0].Content)-3:])
	}
	if len(m.Problems) != 1 || !strings.Contains(m.Problems[0].Error(), filepath.Join(root, "CLAUDE.md")+": longer than 256 KiB") {
		t.Errorf("problems %q, want one naming the cut", m.Problems)
	}
}

func TestPromptHeadsEachFileWithItsPathNearestFirst(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{".git": "<dir>", "AGENTS.md": "Use tabs.\n@extra.md", "extra.md": "Run make.", "home/.claude/CLAUDE.md": "Be brief.",
		".claude/rules/go.md": "---\npaths:\n  - \"**/*.go\"\n  - go.mod\n---\nWrap errors."})
	p := Load(Places{Dir: root, Home: filepath.Join(root, "home")}).Prompt()
	var at []int
	for _, want := range []string{
		"more specific",
		"Contents of " + filepath.Join(root, "AGENTS.md") + " (project instructions):\n\nUse tabs.",
		"Contents of " + filepath.Join(root, "extra.md") + " (imported by " + filepath.Join(root, "AGENTS.md") + "):\n\nRun make.",
		"Contents of " + filepath.Join(root, ".claude/rules/go.md") + " (project rules, for files matching **/*.go, go.mod):\n\nWrap errors.",
		"Contents of " + filepath.Join(root, "home/.claude/CLAUDE.md") + " (the user's instructions for all projects):\n\nBe brief.",
	} {
		i := strings.Index(p, want)
		if i < 0 {
			t.Fatalf("prompt lacks %q:\n%s", want, p)
		}
		at = append(at, i)
	}
	for i := 1; i < len(at); i++ {
		if at[i] < at[i-1] {
			t.Errorf("prompt out of order:\n%s", p)
		}
	}
	if (&Memory{}).Prompt() != "" {
		t.Error("no files should give no memory block")
	}
}

func TestSummaryListsFilesWithSizeLinesImporterAndWarnings(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"CLAUDE.md": "one\ntwo\n@x.md\n@gone.md\n", "x.md": "x"})
	s := Load(Places{Dir: root}).Summary()
	for _, want := range []string{
		filepath.Join(root, "CLAUDE.md") + " · 23 B · 4 lines · project instructions",
		filepath.Join(root, "x.md") + " · 1 B · 1 line · imported by " + filepath.Join(root, "CLAUDE.md") + ":3",
		"Warnings:\n  " + filepath.Join(root, "CLAUDE.md") + ":4: import @" + filepath.Join(root, "gone.md") + ": no such file",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

func TestCodexUsersAGENTSFilesAreReadAndAnOverrideReplacesTheFileBesideIt(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"repo/AGENTS.md":               "project agents",
		"repo/AGENTS.override.md":      "project override",
		"home/.codex/AGENTS.md":        "codex user agents",
		"codexhome/AGENTS.md":          "codex home agents",
		"codexhome/AGENTS.override.md": "codex home override",
	})
	got := loaded(root, Load(Places{Dir: filepath.Join(root, "repo"), Home: filepath.Join(root, "home")}))
	if strings.Join(got, ",") != "repo/AGENTS.override.md,home/.codex/AGENTS.md" {
		t.Errorf("loaded %q", got)
	}
	got = loaded(root, Load(Places{Dir: filepath.Join(root, "repo"), Home: filepath.Join(root, "home"), CodexHome: filepath.Join(root, "codexhome")}))
	if strings.Join(got, ",") != "repo/AGENTS.override.md,codexhome/AGENTS.override.md" {
		t.Errorf("with $CODEX_HOME loaded %q", got)
	}
}
