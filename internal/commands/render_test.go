package commands

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// files is a Runner over a map: shell outputs by command, files by path.
type files struct {
	out   map[string]string
	files map[string]string
	ran   []string
}

func (f *files) Shell(_ context.Context, cmd string) (string, error) {
	f.ran = append(f.ran, cmd)
	if o, ok := f.out[cmd]; ok {
		return o, nil
	}
	return "", errors.New("permission denied: " + cmd)
}

func (f *files) File(path string) (string, bool, error) {
	if path == "../secret" {
		return "", false, errors.New("outside the workspace")
	}
	c, ok := f.files[path]
	return c, ok, nil
}

func TestRenderInlinesCommandOutputAndFilesAfterTheArguments(t *testing.T) {
	c := Command{Name: "review", Prompt: "## Context\n- Status: !`git status --short`\n- Branch: !`git branch --show-current`\n\nReview @src/a.go and @src/a.go, ask @alice, mail x@y.z.\nFocus: $ARGUMENTS"}
	r := &files{out: map[string]string{"git status --short": " M src/a.go\n", "git branch --show-current": "main\n"},
		files: map[string]string{"src/a.go": "package a\n"}}
	got, err := c.Render(context.Background(), "errors", r)
	if err != nil {
		t.Fatal(err)
	}
	want := "## Context\n- Status:  M src/a.go\n- Branch: main\n\nReview @src/a.go and @src/a.go, ask @alice, mail x@y.z.\nFocus: errors" +
		"\n\n<file path=\"src/a.go\">\npackage a\n</file>"
	if got != want {
		t.Errorf("Render =\n%q\nwant\n%q", got, want)
	}
	if strings.Join(r.ran, "|") != "git status --short|git branch --show-current" {
		t.Errorf("ran %q", r.ran)
	}
}

func TestRenderStopsAtADeniedCommandOrAFileOutsideTheWorkspace(t *testing.T) {
	c := Command{Name: "ship", Prompt: "!`git push` then !`echo never`"}
	r := &files{}
	_, err := c.Render(context.Background(), "", r)
	if err == nil || err.Error() != "/ship: !`git push`: permission denied: git push" || len(r.ran) != 1 {
		t.Errorf("err %v, ran %q; want the denial and nothing run after it", err, r.ran)
	}
	_, err = Command{Name: "leak", Prompt: "see @../secret"}.Render(context.Background(), "", r)
	if err == nil || !strings.Contains(err.Error(), "/leak: @../secret: outside the workspace") {
		t.Errorf("err %v", err)
	}
}

func TestCommandFilesReadAllowedToolsAndModel(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		".claude/commands/commit.md": "---\nallowed-tools: Bash(git add:*), Bash(git status:*)\nmodel: claude-3-5-haiku-20241022\n---\n!`git status`",
		".claude/commands/alias.md":  "---\nmodel: haiku\n---\nplain",
	})
	s, problems := Load(Dirs(root, "", ""), nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	c, _ := s.Lookup("commit")
	if strings.Join(c.AllowedTools, "|") != "Bash(git add:*)|Bash(git status:*)" || c.Model != "claude-3-5-haiku-20241022" || !c.HasRefs() {
		t.Errorf("commit: %+v", c)
	}
	if a, _ := s.Lookup("alias"); a.Model != "" || a.HasRefs() {
		t.Errorf("alias: %+v (a Claude Code alias runs on the run's model)", a)
	}
}
