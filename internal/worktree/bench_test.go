package worktree

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkWorktreeCreate times an isolated sub-agent's worktree on a
// shared clone of this repository (its top level, found from the package
// directory) with one uncommitted change: ms/create is Add, what a task
// call waits for (budget 150 ms); ms/filled adds Checkout, which runs
// while the agent's first model request is under way.
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
	var added, filled time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		tr, err := Add(ctx, repo, "bench-1", "benchmark")
		added += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if err := tr.Checkout(ctx); err != nil {
			b.Fatal(err)
		}
		filled += time.Since(start)
		b.StopTimer()
		if err := tr.Remove(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(added), "ms/create")
	b.ReportMetric(ms(filled), "ms/filled")
}
