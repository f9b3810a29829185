package worktree

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkWorktreeCreate times Create on a shared clone of this
// repository (its top level, found from the package directory) with one
// uncommitted change, as an isolated sub-agent starts. Budget: 150 ms.
func BenchmarkWorktreeCreate(b *testing.B) {
	src, err := TopLevel(context.Background(), ".")
	if err != nil {
		b.Skip("not inside a git checkout:", err)
	}
	repo := filepath.Join(b.TempDir(), "repo")
	if out, err := exec.Command("git", "clone", "-q", "--shared", src, repo).CombinedOutput(); err != nil {
		b.Fatalf("clone: %v\n%s", err, out)
	}
	write(b, filepath.Join(repo, "README.md"), "an uncommitted edit\n")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr, err := Create(ctx, repo, "bench-1", "benchmark")
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := tr.Remove(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	_ = os.RemoveAll(repo)
}
