package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/testkit"
)

func newRepo(t testing.TB, files map[string]string) string { return testkit.GitRepo(t, files) }

func run(t testing.TB, dir string, args ...string) string { return testkit.Git(t, dir, args...) }

func read(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func write(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func create(t testing.TB, repo, id, task string) *Tree {
	t.Helper()
	tr, err := Create(context.Background(), repo, id, task)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// finished is a worktree in which files were written and that finished.
func finished(t testing.TB, repo, id string, files map[string]string) *Tree {
	t.Helper()
	tr := create(t, repo, id, "task of "+id)
	testkit.WriteFiles(t, tr.Path, files)
	if _, err := tr.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestCreateCarriesHeadPlusUncommittedChangesAndLeavesTheLeadUntouched(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n", "b.txt": "bee\n", "ignored.log": ""})
	write(t, filepath.Join(repo, ".gitignore"), "*.log\n")
	write(t, filepath.Join(repo, "a.txt"), "one, edited\n")
	write(t, filepath.Join(repo, "new/untracked.txt"), "fresh\n")
	write(t, filepath.Join(repo, "junk.log"), "ignored\n")
	run(t, repo, "add", "b.txt") // staged but unchanged: the index stays as it is
	statusBefore := run(t, repo, "status", "--porcelain")

	tr := create(t, repo, "general-purpose-1", "edit a file")

	if tr.Branch != "atomic/general-purpose-1" || tr.Path != filepath.Join(repo, ".atomic", "worktrees", "general-purpose-1") {
		t.Fatalf("branch %s at %s", tr.Branch, tr.Path)
	}
	if got := read(t, filepath.Join(tr.Path, "a.txt")); got != "one, edited\n" {
		t.Errorf("modified file in the worktree: %q", got)
	}
	if got := read(t, filepath.Join(tr.Path, "new/untracked.txt")); got != "fresh\n" {
		t.Errorf("untracked file in the worktree: %q", got)
	}
	if _, err := os.Stat(filepath.Join(tr.Path, "junk.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an ignored file was carried over: %v", err)
	}
	if got := run(t, tr.Path, "status", "--porcelain"); got != "" {
		t.Errorf("the worktree starts clean on its base, got status:\n%s", got)
	}
	if got := run(t, repo, "status", "--porcelain"); got != statusBefore {
		t.Errorf("lead's status changed (the worktree dir must be excluded):\nbefore:\n%s\nafter:\n%s", statusBefore, got)
	}
	if strings.Contains(read(t, filepath.Join(repo, ".gitignore")), "atomic") {
		t.Error("the user's .gitignore was edited; .git/info/exclude is the place")
	}
	if got := run(t, repo, "stash", "list"); got != "" {
		t.Errorf("the lead's stash was touched: %s", got)
	}
}

func TestCreateOnACleanTreeStartsFromHead(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n"})
	tr := create(t, repo, "explore-1", "look")
	if head := run(t, repo, "rev-parse", "HEAD"); tr.Base != head {
		t.Fatalf("base %s, want HEAD %s", tr.Base, head)
	}
}

func TestCreateOutsideAGitRepositoryFailsSayingSo(t *testing.T) {
	dir := t.TempDir()
	_, err := Create(context.Background(), dir, "general-purpose-1", "x")
	if err == nil || !strings.Contains(err.Error(), "needs a git repository") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("error: %v", err)
	}
}

func TestCreateTakesTheNextNameWhenALeftoverHoldsTheBranch(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n"})
	first := create(t, repo, "general-purpose-1", "x")
	second := create(t, repo, "general-purpose-1", "y")
	if first.Branch == second.Branch || second.Branch != "atomic/general-purpose-1-2" {
		t.Fatalf("branches %s and %s", first.Branch, second.Branch)
	}
}

func TestCreateFromASubdirectoryRootsTheAgentInTheSameSubdirectory(t *testing.T) {
	repo := newRepo(t, map[string]string{"pkg/a.go": "package a\n"})
	tr := create(t, repo, "general-purpose-1", "x")
	_ = tr.Remove(context.Background())
	tr = create(t, filepath.Join(repo, "pkg"), "general-purpose-2", "x")
	if tr.Root != filepath.Join(tr.Path, "pkg") {
		t.Fatalf("root %s", tr.Root)
	}
}

func TestFinishCommitsChangesWithTheAgentAndTaskInTheMessage(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n"})
	tr := create(t, repo, "general-purpose-1", "rename the thing")
	write(t, filepath.Join(tr.Path, "a.txt"), "one\ntwo\n")
	write(t, filepath.Join(tr.Path, "c.txt"), "sea\n")

	out, err := tr.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !out.Changed || !strings.Contains(out.Stat, "2 files changed") || !strings.Contains(out.Stat, "a.txt") {
		t.Fatalf("outcome %+v", out)
	}
	if msg := run(t, repo, "log", "-1", "--format=%s%n%an", tr.Branch); msg != "atomic: general-purpose-1: rename the thing\nTest User" {
		t.Fatalf("commit: %q", msg)
	}
	if got := run(t, tr.Path, "status", "--porcelain"); got != "" {
		t.Fatalf("left uncommitted: %s", got)
	}
	if _, err := os.Stat(tr.Path); err != nil {
		t.Fatalf("a changed worktree stays until merged or discarded: %v", err)
	}
}

func TestFinishWithoutAGitIdentityCommitsAsAtomic(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n"})
	run(t, repo, "config", "--unset", "user.name")
	run(t, repo, "config", "--unset", "user.email")
	t.Setenv("HOME", t.TempDir()) // no global identity either
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	tr := create(t, repo, "general-purpose-1", "x")
	write(t, filepath.Join(tr.Path, "a.txt"), "two\n")
	if _, err := tr.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	if who := run(t, repo, "log", "-1", "--format=%an <%ae>", tr.Branch); who != "Atomic <atomic@localhost>" {
		t.Fatalf("author %q", who)
	}
}

func TestFinishRemovesAnUnchangedWorktreeAndItsBranch(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n"})
	write(t, filepath.Join(repo, "a.txt"), "dirty\n")
	tr := create(t, repo, "explore-1", "look around")
	out, err := tr.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.Changed {
		t.Fatalf("outcome %+v", out)
	}
	if _, err := os.Stat(tr.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("worktree dir left: %v", err)
	}
	if got := run(t, repo, "branch", "--list", "atomic/*"); got != "" {
		t.Fatalf("branch left: %s", got)
	}
	if got := run(t, repo, "worktree", "list", "--porcelain"); strings.Contains(got, Dir) {
		t.Fatalf("worktree still registered:\n%s", got)
	}
}

func TestMergeAppliesTheBranchOntoTheLeadsTreeAndRemovesIt(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n", "b.txt": "bee\n"})
	tr := finished(t, repo, "general-purpose-1", map[string]string{"a.txt": "one\ntwo\n", "d.txt": "new\n"})
	write(t, filepath.Join(repo, "b.txt"), "lead's own edit\n") // unrelated lead work

	if err := tr.Merge(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(repo, "a.txt")); got != "one\ntwo\n" {
		t.Errorf("a.txt %q", got)
	}
	if got := read(t, filepath.Join(repo, "d.txt")); got != "new\n" {
		t.Errorf("d.txt %q", got)
	}
	if got := read(t, filepath.Join(repo, "b.txt")); got != "lead's own edit\n" {
		t.Errorf("the lead's own edit was lost: %q", got)
	}
	if got := run(t, repo, "diff", "--cached", "--name-only"); got != "" {
		t.Errorf("merge staged files (it should only change the work tree): %s", got)
	}
	if got := run(t, repo, "branch", "--list", "atomic/*"); got != "" {
		t.Errorf("branch left after merge: %s", got)
	}
}

// snapshotOf is every observable bit of the lead's state a merge could
// change: status, index, and the bytes of every file.
func snapshotOf(t testing.TB, repo string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(run(t, repo, "status", "--porcelain", "--untracked-files=all"))
	b.WriteString("\n--index--\n" + run(t, repo, "ls-files", "--stage"))
	_ = filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		if d.IsDir() && (rel == ".git" || rel == ".atomic") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b.WriteString("\n--" + rel + "--\n" + read(t, p))
		}
		return nil
	})
	return b.String()
}

func TestMergeOfAConflictingBranchNamesTheFilesAndChangesNothing(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "line 1\nline 2\nline 3\n", "b.txt": "bee\n"})
	first := create(t, repo, "general-purpose-1", "x")
	second := create(t, repo, "general-purpose-2", "y")
	write(t, filepath.Join(first.Path, "a.txt"), "line 1\nFIRST\nline 3\n")
	write(t, filepath.Join(second.Path, "a.txt"), "line 1\nSECOND\nline 3\n")
	write(t, filepath.Join(second.Path, "b.txt"), "bee, applies cleanly on its own\n")
	for _, tr := range []*Tree{first, second} {
		if _, err := tr.Finish(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := first.Merge(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := snapshotOf(t, repo)

	err := second.Merge(context.Background())
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("want a conflict, got %v", err)
	}
	if !slices.Equal(conflict.Files, []string{"a.txt"}) || !strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("conflict files %v: %v", conflict.Files, err)
	}
	if after := snapshotOf(t, repo); after != before {
		t.Fatalf("a failed merge changed the lead's tree:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if _, err := os.Stat(second.Path); err != nil {
		t.Fatalf("the conflicting worktree must stay for the user to resolve or discard: %v", err)
	}
}

func TestMergeOntoAFileTheLeadCreatedMeanwhileIsAConflict(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n"})
	tr := finished(t, repo, "general-purpose-1", map[string]string{"n.txt": "agent\n"})
	write(t, filepath.Join(repo, "n.txt"), "lead\n")
	var conflict *ConflictError
	if err := tr.Merge(context.Background()); !errors.As(err, &conflict) || !slices.Equal(conflict.Files, []string{"n.txt"}) {
		t.Fatalf("got %v", err)
	}
	if got := read(t, filepath.Join(repo, "n.txt")); got != "lead\n" {
		t.Fatalf("lead's file overwritten: %q", got)
	}
}

func TestRemoveDiscardsTheWorktreeAndBranch(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n"})
	tr := finished(t, repo, "general-purpose-1", map[string]string{"a.txt": "changed\n"})
	if err := tr.Remove(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "branch", "--list", "atomic/*"); got != "" {
		t.Fatalf("branch left: %s", got)
	}
	if got := read(t, filepath.Join(repo, "a.txt")); got != "one\n" {
		t.Fatalf("discard touched the lead: %q", got)
	}
}

func TestCancelledCreateLeavesNoWorktreeLockOrBranch(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[filepath.Join("d", strings.Repeat("x", i%7+1), "f"+string(rune('a'+i%26))+strings.Repeat("y", i/26)+".txt")] = "content\n"
	}
	repo := newRepo(t, files)
	cancelled := 0
	for _, after := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), after)
		tr, err := Create(ctx, repo, "general-purpose-1", "x")
		cancel()
		if err == nil {
			_ = tr.Remove(context.Background())
			continue
		}
		cancelled++
		if got := run(t, repo, "worktree", "list", "--porcelain"); strings.Contains(got, "locked") || strings.Contains(got, Dir) {
			t.Fatalf("after a cancel at %s: %s", after, got)
		}
		if got := run(t, repo, "branch", "--list", "atomic/*"); got != "" {
			t.Fatalf("after a cancel at %s, branch left: %s", after, got)
		}
	}
	if cancelled == 0 {
		t.Fatal("no Create was cancelled part way; the test checked nothing")
	}
}

func TestOpenListsLeftoversAndClearsAStaleInitializingLock(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n"})
	tr := create(t, repo, "general-purpose-1", "fix the bug")
	write(t, filepath.Join(tr.Path, "a.txt"), "two\n")
	if _, err := tr.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "worktree", "lock", "--reason", "initializing", tr.Path) // as a killed git worktree add leaves it
	gone := create(t, repo, "general-purpose-2", "x")
	if err := os.RemoveAll(gone.Path); err != nil { // a directory deleted by hand
		t.Fatal(err)
	}

	trees, err := Open(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(trees) != 1 {
		t.Fatalf("want only the leftover whose directory exists, got %d trees", len(trees))
	}
	got := trees[0]
	if got.ID != "general-purpose-1" || got.Base != tr.Base || got.Task != "fix the bug" || got.Branch != tr.Branch {
		t.Fatalf("leftover %+v, want %+v", got, tr)
	}
	if l := run(t, repo, "worktree", "list", "--porcelain"); strings.Contains(l, "locked") || strings.Contains(l, gone.Path) {
		t.Fatalf("after Open: %s", l)
	}
	if stat, err := got.Stat(context.Background()); err != nil || !strings.Contains(stat, "1 file changed") {
		t.Fatalf("stat %q %v", stat, err)
	}
	if err := got.Merge(context.Background()); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(repo, "a.txt")) != "two\n" {
		t.Fatal("leftover not merged")
	}
}

func TestFilesListsWhatAMergeWouldChangeAsPathsInTheLeadsTree(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n", "b.txt": "bee\n"})
	tr := finished(t, repo, "general-purpose-1", map[string]string{"a.txt": "two\n", "sub/new file.txt": "new\n"})
	got, err := tr.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(tr.Repo, "a.txt"), filepath.Join(tr.Repo, "sub", "new file.txt")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Files = %q, want %q", got, want)
	}
}
