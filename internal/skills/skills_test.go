package skills

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// realShaped is a .claude folder as Claude Code users write it: skills
// with front matter, scripts and references beside SKILL.md.
func realShaped(t *testing.T) (root, home string) {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"home/.claude/skills/pdf/SKILL.md":        "---\nname: pdf\ndescription: Fill and merge PDF forms (user copy)\n---\nUser PDF steps.",
		"home/.claude/skills/standup/SKILL.md":    "---\nname: standup\ndescription: Write the daily standup from git log\n---\nRun git log.",
		"proj/.claude/skills/pdf/SKILL.md":        "---\nname: pdf\ndescription: Fill and merge PDF forms\nallowed-tools: Bash(python3 scripts/fill.py:*), Read\n---\n# PDF\nRun scripts/fill.py with $ARGUMENTS.\nSee reference.md.",
		"proj/.claude/skills/pdf/scripts/fill.py": "print('fill')",
		"proj/.claude/skills/pdf/reference.md":    "# Fields",
		"proj/.claude/skills/release/SKILL.md":    "---\nname: release\ndescription: Cut a release\ndisable-model-invocation: true\n---\nTag it.",
		"proj/.claude/skills/notes.txt":           "not a skill",
		"proj/.claude/skills/empty/README.md":     "no SKILL.md here",
		"proj/.atomic/skills/go-test/SKILL.md":    "Write table-driven Go tests.\n\nUse t.Run.",
		"proj/.atomic/skills/broken/SKILL.md":     "---\nname: broken\ndescription: x\n",
	})
	return filepath.Join(dir, "proj"), filepath.Join(dir, "home")
}

func TestSkillsLoadFromTheProjectAndTheUserProjectWinning(t *testing.T) {
	root, home := realShaped(t)
	set, problems := Load(Dirs(root, home))
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), filepath.Join("broken", "SKILL.md")+": line 1: front matter is not closed") {
		t.Errorf("problems %q, want the broken skill's", problems)
	}
	var got []string
	for _, sk := range set.All() {
		got = append(got, sk.Name+" | "+sk.Scope+" | "+sk.Description+" | "+strings.Join(sk.AllowedTools, ";"))
	}
	want := []string{
		"go-test | project | Write table-driven Go tests. | ",
		"pdf | project | Fill and merge PDF forms | Bash(python3 scripts/fill.py:*);Read",
		"release | project | Cut a release | ",
		"standup | user | Write the daily standup from git log | ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("skills:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestTheSkillToolOffersOnlyNamesAndDescriptionsAndNoneWithoutSkills(t *testing.T) {
	root, home := realShaped(t)
	set, _ := Load(Dirs(root, home))
	tool := NewTool(set, nil)
	d := tool.Description()
	for _, w := range []string{"- go-test: Write table-driven Go tests.", "- pdf: Fill and merge PDF forms", "- standup: Write the daily standup"} {
		if !strings.Contains(d, w) {
			t.Errorf("description lacks %q:\n%s", w, d)
		}
	}
	for _, no := range []string{"release", "Run scripts/fill.py", "user copy", "t.Run"} {
		if strings.Contains(d, no) {
			t.Errorf("description has %q (a hidden skill or a body):\n%s", no, d)
		}
	}
	empty, _ := Load(Dirs(t.TempDir(), t.TempDir()))
	if NewTool(empty, nil) != nil {
		t.Error("a skill tool was made with no skills")
	}
}

func TestLoadingASkillGivesItsBodyItsFolderAndGrantsItsAllowedTools(t *testing.T) {
	root, home := realShaped(t)
	set, _ := Load(Dirs(root, home))
	var grantedTo string
	var granted []string
	tool := NewTool(set, func(agent string, rules []string) error {
		grantedTo, granted = agent, rules
		return nil
	})
	for _, in := range []string{`{"name":"pdf","args":"form.pdf"}`, `{"skill":"PDF","args":"form.pdf"}`, `{"command":"/pdf","args":"form.pdf"}`} {
		res := tools.Execute(context.Background(), tool, tools.Call{ID: "c1", AgentID: "lead", Input: json.RawMessage(in)})
		if res.IsError {
			t.Fatalf("%s: %s", in, res.Content)
		}
		dir := filepath.Join(root, ".claude", "skills", "pdf")
		for _, w := range []string{"Base directory for this skill: " + dir, "Its other files: reference.md, scripts/fill.py", "Run scripts/fill.py with form.pdf.", "Bash(python3 scripts/fill.py:*), Read"} {
			if !strings.Contains(res.Content, w) {
				t.Errorf("%s: result lacks %q:\n%s", in, w, res.Content)
			}
		}
		if strings.Contains(res.Content, "allowed-tools:") || strings.Contains(res.Content, "User PDF steps") {
			t.Errorf("%s: result has the front matter or the user's copy:\n%s", in, res.Content)
		}
	}
	if grantedTo != "lead" || strings.Join(granted, ";") != "Bash(python3 scripts/fill.py:*);Read" {
		t.Errorf("granted %q to %q", granted, grantedTo)
	}
	for in, want := range map[string]string{
		`{"name":"release"}`: `no skill "release"; skills: go-test, pdf, standup`,
		`{}`:                 "give the skill's name",
	} {
		res := tools.Execute(context.Background(), tool, tools.Call{ID: "c2", Input: json.RawMessage(in)})
		if !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s: %+v, want an error with %q", in, res, want)
		}
	}
}

func TestAnAgentsSkillsArePreloadedAndUnknownOnesNamed(t *testing.T) {
	root, home := realShaped(t)
	set, _ := Load(Dirs(root, home))
	block, missing := set.Preload([]string{"go-test", "nope"})
	if !strings.Contains(block, "<skill name=\"go-test\">\nBase directory for this skill: "+filepath.Join(root, ".atomic", "skills", "go-test")+"\n\nWrite table-driven Go tests.\n\nUse t.Run.\n</skill>") {
		t.Errorf("block:\n%s", block)
	}
	if strings.Join(missing, ",") != "nope" {
		t.Errorf("missing %q", missing)
	}
}

func TestHoldingProjectGrantsClearsOnlyTheProjectSkillsAllowedTools(t *testing.T) {
	root, home := realShaped(t)
	testkit.WriteFiles(t, home, map[string]string{".claude/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint\nallowed-tools: Bash(golangci-lint run:*)\n---\nRun it."})
	set, _ := Load(Dirs(root, home))
	held := set.HoldProjectGrants()
	if strings.Join(held, "|") != "pdf (Bash(python3 scripts/fill.py:*), Read)" {
		t.Errorf("held %q", held)
	}
	if pdf, _ := set.Get("pdf"); pdf.AllowedTools != nil {
		t.Errorf("pdf still grants %q", pdf.AllowedTools)
	}
	if lint, _ := set.Get("lint"); strings.Join(lint.AllowedTools, ",") != "Bash(golangci-lint run:*)" {
		t.Errorf("the user's skill lost its grant: %q", lint.AllowedTools)
	}
}
