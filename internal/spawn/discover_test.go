package spawn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/dotdirs"
)

// A Claude Code user's agents load from a subfolder of the repository as
// Claude Code loads them: the repository root's, a nearer folder's, the
// user's ~/.claude/agents, and files in subfolders of any of them (named
// by their front matter). The project overrides the user and the nearest
// folder wins.
func TestAgentFilesAreFoundFromTheRepositoryRootSubfoldersAndTheHome(t *testing.T) {
	top := t.TempDir()
	home, repo := filepath.Join(top, "home"), filepath.Join(top, "repo")
	cwd := filepath.Join(repo, "svc", "api")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	agent := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\nYou are " + name + ".\n"
	}
	write(t, filepath.Join(home, ".claude", "agents"), "mine.md", agent("mine", "user only"))
	write(t, filepath.Join(home, ".claude", "agents"), "reviewer.md", agent("reviewer", "user reviewer"))
	write(t, filepath.Join(repo, ".claude", "agents"), "reviewer.md", agent("reviewer", "root reviewer"))
	write(t, filepath.Join(repo, ".claude", "agents"), "planner.md", agent("planner", "root planner"))
	write(t, filepath.Join(repo, ".claude", "agents", "quality", "deep"), "file-name-is-not-the-name.md", agent("auditor", "nested"))
	write(t, filepath.Join(repo, "svc", ".claude", "agents"), "planner.md", agent("planner", "svc planner"))

	dirs := dotdirs.Find("agents", dotdirs.Places{Dir: cwd, Home: home})
	reg, problems := LoadTypes(dotdirs.Paths(dirs), known)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	want := map[string]string{"mine": "user only", "reviewer": "root reviewer", "planner": "svc planner", "auditor": "nested"}
	for name, desc := range want {
		typ, ok := reg.Get(name)
		if !ok || typ.Description != desc {
			t.Errorf("%s = %+v (found %v), want the description %q", name, typ, ok, desc)
		}
	}
	if a, _ := reg.Get("auditor"); !strings.HasSuffix(a.Source, filepath.Join("quality", "deep", "file-name-is-not-the-name.md")) {
		t.Errorf("auditor's source %q", a.Source)
	}
	if _, ok := reg.Get("file-name-is-not-the-name"); ok {
		t.Error("a nested file was registered under its file name")
	}
}

// A binary file (or another encoding) among the agent files must not
// load as an agent named after the file: it is skipped with an error
// naming the file and line, and the other files load.
func TestAnAgentFileThatIsNotUTF8IsSkippedWithAnErrorNamingIt(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ok.md", "---\nname: ok\ndescription: fine\n---\nbody")
	bin := write(t, filepath.Join(dir, "tools"), "bin.md", "\x7fELF\x02\x01\x01\x00\x00\xff\xfe\n")
	latin1 := write(t, dir, "latin1.md", "---\nname: caf\xe9\ndescription: d\n---\n")
	reg, problems := LoadTypes([]string{dir}, known)
	if _, ok := reg.Get("ok"); !ok {
		t.Fatalf("ok did not load: %v", reg.Names())
	}
	for _, n := range []string{"bin", "latin1", "caf"} {
		if _, ok := reg.Get(n); ok {
			t.Errorf("%s loaded as an agent", n)
		}
	}
	if len(problems) != 2 {
		t.Fatalf("problems %v, want one per file", problems)
	}
	for i, path := range []string{latin1, bin} {
		var fe *AgentFileError
		if !errors.As(problems[i], &fe) || fe.Path != path || !strings.Contains(problems[i].Error(), "not UTF-8 text") {
			t.Errorf("problem %d = %v, want %s not UTF-8", i, problems[i], path)
		}
	}
	if !strings.Contains(problems[0].Error(), "line 2: ") {
		t.Errorf("latin1's problem %q does not name line 2", problems[0])
	}
}
