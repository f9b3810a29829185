package dotdirs

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFindListsTheUsersFoldersThenTheRepositoryRootDownToTheWorkingDirectory(t *testing.T) {
	top := t.TempDir()
	home, cfg := mkdir(t, top, "home"), mkdir(t, top, "cfg")
	repo := mkdir(t, top, "repo")
	mkdir(t, repo, ".git")
	cwd := mkdir(t, repo, "svc", "api")
	got := Find("agents", Places{Dir: cwd, Home: home, ConfigDir: cfg})
	want := []Dir{
		{filepath.Join(home, ".claude", "agents"), UserScope},
		{filepath.Join(cfg, "agents"), UserScope},
		{filepath.Join(repo, ".claude", "agents"), ProjectScope},
		{filepath.Join(repo, ".atomic", "agents"), ProjectScope},
		{filepath.Join(repo, "svc", ".claude", "agents"), ProjectScope},
		{filepath.Join(repo, "svc", ".atomic", "agents"), ProjectScope},
		{filepath.Join(cwd, ".claude", "agents"), ProjectScope},
		{filepath.Join(cwd, ".atomic", "agents"), ProjectScope},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Find = %v\nwant %v", got, want)
	}
}

func TestOutsideARepositoryOnlyTheWorkingDirectoryIsTheProject(t *testing.T) {
	top := t.TempDir()
	cwd := mkdir(t, top, "a", "b")
	mkdir(t, top, "a", ".claude", "commands") // a parent, but no repository holds it
	got := Find("commands", Places{Dir: cwd})
	want := []Dir{{filepath.Join(cwd, ".claude", "commands"), ProjectScope}, {filepath.Join(cwd, ".atomic", "commands"), ProjectScope}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Find = %v, want %v", got, want)
	}
}

// A worktree's .git is a file; it still marks the root.
func TestAGitFileMarksTheRepositoryRootAsAGitFolderDoes(t *testing.T) {
	top := t.TempDir()
	if err := os.WriteFile(filepath.Join(top, ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd := mkdir(t, top, "sub")
	if got := Project(cwd); !reflect.DeepEqual(got, []string{cwd, top}) {
		t.Fatalf("Project = %v, want [%s %s]", got, cwd, top)
	}
}

// A dotfiles repository at ~ must not make ~/.claude/skills the
// project's too: it is listed once, as the user's.
func TestTheHomesClaudeFolderIsTheUsersEvenInsideARepositoryAtHome(t *testing.T) {
	home := t.TempDir()
	mkdir(t, home, ".git")
	cwd := mkdir(t, home, "notes")
	got := Find("skills", Places{Dir: cwd, Home: home})
	want := []Dir{
		{filepath.Join(home, ".claude", "skills"), UserScope},
		{filepath.Join(home, ".atomic", "skills"), ProjectScope},
		{filepath.Join(cwd, ".claude", "skills"), ProjectScope},
		{filepath.Join(cwd, ".atomic", "skills"), ProjectScope},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Find = %v\nwant %v", got, want)
	}
}
