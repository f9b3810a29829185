package claudesettings

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// repoTree makes a repository (root holding .git) with a subfolder app/web
// and writes files, paths relative to the base folder; it returns the base.
func repoTree(t *testing.T, files map[string]string) string {
	t.Helper()
	base := t.TempDir()
	for _, d := range []string{"repo/.git", "repo/app/web", "home"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for rel, text := range files {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

func TestADenyRuleOfTheRepositoryRootAppliesWhenRunFromASubfolderAndNamesItsFile(t *testing.T) {
	base := repoTree(t, map[string]string{
		"repo/.claude/settings.json":     `{"permissions": {"deny": ["Bash(rm:*)", "Read(/secrets/**)"]}}`,
		"repo/app/.claude/settings.json": `{"permissions": {"allow": ["Bash(rm:*)"]}}`,
	})
	dir := filepath.Join(base, "repo", "app", "web")
	for _, trust := range []bool{false, true} {
		s, err := Load(Places{Dir: dir, Home: filepath.Join(base, "home"), TrustProject: trust})
		if err != nil {
			t.Fatal(err)
		}
		g, err := permission.NewGate(permission.Options{Mode: permission.BypassPermissions, Root: dir, Settings: s.Rules})
		if err != nil {
			t.Fatal(err)
		}
		rootFile := filepath.Join(base, "repo", ".claude", "settings.json")
		d := g.Decide(context.Background(), permission.Request{Tool: "bash", Kind: tools.Exec, Subject: "rm -rf build"})
		if d.Allow || !strings.Contains(d.Reason, rootFile) {
			t.Errorf("trust %v: rm from a subfolder: allow %v (%s), want denied by %s", trust, d.Allow, d.Reason, rootFile)
		}
		// /secrets is relative to the folder holding the rule's .claude.
		d = g.Decide(context.Background(), permission.Request{Tool: "read", Kind: tools.ReadOnly, Subject: filepath.Join(base, "repo", "secrets", "key")})
		if d.Allow {
			t.Errorf("trust %v: reading the root's /secrets from a subfolder is allowed", trust)
		}
	}
}

func TestTheNearestLevelWinsForModelAndEnvAndEveryLevelsHooksRunOnceTrusted(t *testing.T) {
	hook := func(cmd string) string {
		return `"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + cmd + `"}]}]}`
	}
	base := repoTree(t, map[string]string{
		"repo/.claude/settings.json":           `{"model": "claude-opus-4-1", "env": {"A": "root", "B": "root"}, ` + hook("root-guard") + `}`,
		"repo/app/.claude/settings.local.json": `{"model": "claude-sonnet-4-5", "env": {"A": "app"}, ` + hook("app-guard") + `}`,
	})
	dir := filepath.Join(base, "repo", "app")
	p := Places{Dir: dir, Home: filepath.Join(base, "home")}
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Hooks.Count(); n != 0 {
		t.Errorf("untrusted: %d hooks run, want none", n)
	}
	w := strings.Join(s.Warnings, "\n")
	for _, f := range []string{filepath.Join(base, "repo", ".claude", "settings.json"), filepath.Join(dir, ".claude", "settings.local.json")} {
		if !strings.Contains(w, f+" (in the project) has 1 hook command(s)") {
			t.Errorf("untrusted: no warning names the held hooks of %s: %q", f, w)
		}
	}
	p.TrustProject = true
	if s, err = Load(p); err != nil {
		t.Fatal(err)
	}
	if s.Model != "claude-sonnet-4-5" || s.ModelSource != filepath.Join(dir, ".claude", "settings.local.json") {
		t.Errorf("model %q from %s, want the subfolder's", s.Model, s.ModelSource)
	}
	if s.CommandEnv["A"] != "app" || s.CommandEnv["B"] != "root" {
		t.Errorf("env %v, want A from the subfolder and B from the root", s.CommandEnv)
	}
	var cmds []string
	for _, g := range s.Hooks["PreToolUse"] {
		for _, c := range g.Commands {
			cmds = append(cmds, c.Command+" · "+c.Source+" · "+c.ProjectDir)
		}
	}
	// Each hook's CLAUDE_PROJECT_DIR is the folder of its file.
	want := []string{"app-guard · " + filepath.Join(dir, ".claude", "settings.local.json") + " · " + dir,
		"root-guard · " + filepath.Join(base, "repo", ".claude", "settings.json") + " · " + filepath.Join(base, "repo")}
	if strings.Join(cmds, "\n") != strings.Join(want, "\n") {
		t.Errorf("hooks %q, want %q", cmds, want)
	}
	if len(s.Files) != 2 {
		t.Errorf("files read %q, want both levels", s.Files)
	}
}

func TestOutsideARepositoryOnlyTheWorkingDirectorysSettingsAreRead(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "outer", "inner")
	for rel, text := range map[string]string{
		"outer/.claude/settings.json":       `{"permissions": {"deny": ["Bash(ls:*)"]}}`,
		"outer/inner/.claude/settings.json": `{"permissions": {"deny": ["Bash(rm:*)"]}}`,
	} {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(Places{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range s.Rules {
		texts = append(texts, r.Text)
	}
	if strings.Join(texts, ",") != "Bash(rm:*)" {
		t.Errorf("rules %q, want only the working directory's", texts)
	}
}
