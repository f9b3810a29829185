//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// backendBench is one backend as BenchmarkBackendStart runs it: the CLI
// (empty for the native loop), the API it speaks on the loopback and the
// model it is given.
type backendBench struct {
	name, api, model string
	cli              func(testing.TB) string
}

var backendBenches = []backendBench{
	{name: "native", api: "anthropic", model: "claude-test-model"},
	{name: "claude-code", api: "anthropic", model: "claude-test-model", cli: testkit.ClaudeCLI},
	{name: "codex", api: "openai", model: "gpt-test", cli: testkit.CodexCLI},
	{name: "opencode", api: "openai", model: "gpt-test", cli: testkit.OpenCodeCLI},
	{name: "copilot", api: "openai", model: "gpt-test", cli: testkit.CopilotCLI},
}

// BenchmarkBackendStart runs the same one-answer prompt through `atomic
// run` on each backend and reports the time from process start to the
// first model request, and the peak RSS of the whole process tree (Atomic
// and, for an external backend, the CLI and everything it started): the
// largest sum of their own peaks, sampled every 2 ms (see package
// peakrss). The runs of a backend share one home, as a user's
// do, after one run that warms it (CLIs unpack themselves and create
// their databases on their first start).
func BenchmarkBackendStart(b *testing.B) {
	for _, bb := range backendBenches {
		b.Run(bb.name, func(b *testing.B) {
			bin := ""
			if bb.cli != nil {
				bin = bb.cli(b)
			}
			home := b.TempDir()
			runBackendOnce(b, bb, bin, home)
			b.ResetTimer()
			var first time.Duration
			peak := 0.0
			for i := 0; i < b.N; i++ {
				f, rss := runBackendOnce(b, bb, bin, home)
				first += f
				peak = max(peak, rss)
			}
			b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "ms-to-first-request")
			b.ReportMetric(peak, "MB-peak-tree-RSS")
		})
	}
}

// runBackendOnce runs one prompt on bb with home as its home and returns the time to its first
// model request and the tree's peak RSS in MB.
func runBackendOnce(b *testing.B, bb backendBench, bin, home string) (time.Duration, float64) {
	b.Helper()
	srv := server(b, "rules: [{respond: {text: hi}}]")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := srv.URL()
	if bb.api == "openai" {
		base += "/v1"
	}
	args := []string{"run", "--base-url", base, "--model", bb.model, "-p", "hi"}
	if bin == "" {
		args = append(args, "--provider", bb.api)
	} else {
		args = append(args, "--backend", bb.name, "--backend-bin", bin)
	}
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = b.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local/share"), "XDG_STATE_HOME=" + filepath.Join(home, ".local/state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "TMPDIR=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"ANTHROPIC_API_KEY=test-key", "OPENAI_API_KEY=test-key", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "NO_COLOR=1", "LANG=C.UTF-8"}
	rep := measureRun(b, cmd)
	log := srv.Log()
	if len(log) == 0 {
		b.Fatalf("%s: no model request", bb.name)
	}
	return log[0].Start.Sub(rep.Start), rep.TreePeakMB
}
