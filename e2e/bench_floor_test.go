//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	floorOnce sync.Once
	floorPath string
	floorErr  error
)

// floorBinary builds e2e/testdata/floor beside the atomic binary.
func floorBinary(tb testing.TB) string {
	tb.Helper()
	floorOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		floorPath = filepath.Join(filepath.Dir(binary), "floor")
		build := exec.Command("go", "build", "-o", floorPath, "./testdata/floor")
		build.Env = shipBuild()
		build.Dir = filepath.Dir(file)
		if out, err := build.CombinedOutput(); err != nil {
			floorErr = fmt.Errorf("building the floor program: %w: %s", err, out)
		}
	})
	if floorErr != nil {
		tb.Fatal(floorErr)
	}
	return floorPath
}

// BenchmarkOneAnswerFloor: S1's request made by a program that is nothing
// but the official Anthropic SDK and net/http (testdata/floor), measured
// as BenchmarkOneAnswer measures atomic: what any Go agent on that SDK
// pays, below which S1's figures cannot go.
func BenchmarkOneAnswerFloor(b *testing.B) {
	bin := floorBinary(b)
	own, tree := 0.0, 0.0
	for i := 0; i < b.N; i++ {
		srv := server(b, "rules: [{respond: {text: hi}}]")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, bin, srv.URL(), "hi")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "ANTHROPIC_API_KEY=test-key"}
		var out bytes.Buffer
		cmd.Stdout = &out
		m := measureRun(b, cmd)
		cancel()
		if got := strings.TrimSpace(out.String()); got != "hi" {
			b.Fatalf("the floor program printed %q, want hi", got)
		}
		own, tree = max(own, m.MaxRSSMB), max(tree, m.TreePeakMB)
	}
	b.ReportMetric(own, "MB-peak-RSS")
	b.ReportMetric(tree, "MB-peak-tree-RSS")
}
