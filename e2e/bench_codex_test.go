//go:build unix

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// codexPrompt is the prompt of the three-sub-agent fan-out (testkit.CodexFanOut).
const codexPrompt = "CAP-FG3: start three sub-agents in parallel, then sum up."

// codexTiming is one run of the fan-out: its wall time, and the two ends
// the model server does not account for: process start to the first
// model request (head), and the end of the last model response to the
// process's exit (tail).
type codexTiming struct {
	wall, head, tail time.Duration
}

// model is the span the model server was in use: first request to last
// response.
func (c codexTiming) model() time.Duration { return c.wall - c.head - c.tail }

// timeRun runs cmd to its end against srv and times it; the run must
// succeed and the lead's summary must be the last model answer.
func timeRun(b *testing.B, cmd *exec.Cmd, srv *loopback.Server, what string) codexTiming {
	b.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	end := time.Now()
	if err != nil {
		b.Fatalf("%s: %v: %s", what, err, errb.String())
	}
	log := srv.Log()
	if len(loopback.ByRule(log, "lead-final")) != 1 || !strings.Contains(out.String(), "all done") {
		b.Fatalf("%s did not end with the lead's one summary; stdout %q", what, out.String())
	}
	var last time.Time
	for _, e := range log {
		if e.End.After(last) {
			last = e.End
		}
	}
	return codexTiming{wall: end.Sub(start), head: log[0].Start.Sub(start), tail: end.Sub(last)}
}

// codexExecCommand is the CLI alone on the fan-out: `codex exec --json`
// with the CODEX_HOME the adapter writes (internal/backend/codex/home.go:
// a model provider "atomic" with the Responses wire API and its key in
// ATOMIC_CODEX_API_KEY) and the sandbox of Atomic's default mode.
func codexExecCommand(b *testing.B, ctx context.Context, bin, baseURL string) *exec.Cmd {
	b.Helper()
	home, codexHome := b.TempDir(), b.TempDir()
	config := "model_provider = \"atomic\"\nmodel = \"gpt-test\"\n\n[model_providers.atomic]\nname = \"atomic\"\n" +
		"base_url = \"" + baseURL + "\"\nwire_api = \"responses\"\nenv_key = \"ATOMIC_CODEX_API_KEY\"\n"
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "exec", "--json", "--skip-git-repo-check", "-s", "workspace-write", codexPrompt)
	cmd.Dir = b.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "TMPDIR=" + home,
		"CODEX_HOME=" + codexHome, "ATOMIC_CODEX_API_KEY=test-key", "NO_COLOR=1", "LANG=C.UTF-8"}
	return cmd
}

// atomicCodexCommand is `atomic run --backend codex` on the fan-out, with
// the environment codexCommand gives the end-to-end tests.
func atomicCodexCommand(b *testing.B, ctx context.Context, bin, baseURL string) *exec.Cmd {
	b.Helper()
	home := b.TempDir()
	cmd := exec.CommandContext(ctx, binary, "run", "--backend", "codex", "--backend-bin", bin, "--base-url", baseURL,
		"--model", "gpt-test", "-p", codexPrompt, "--output-format", "stream-json")
	cmd.Dir = b.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"TMPDIR=" + home, "OPENAI_API_KEY=test-key", "NO_COLOR=1", "LANG=C.UTF-8"}
	return cmd
}

// BenchmarkCodexAddedWallTime compares `atomic run --backend codex` with
// `codex exec --json` alone on the same three-sub-agent fan-out (each
// child answers after 2 s), alternating which goes first, each against
// its own loopback server. Reported: both medians and the median of the
// pairs' differences (ms-added, pct-added; budget under 30 ms and 5%), and the medians of
// the head (start to first model request), model span and tail (last
// model response to exit) of each, which locate the difference. The two are not the
// same program path: Atomic drives `codex app-server` over JSON-RPC,
// `codex exec` runs the same core in-process; tail-ms-added is the part
// that is Atomic's alone (its adapter, bus and output after the CLI's
// last answer, and closing the app-server).
func BenchmarkCodexAddedWallTime(b *testing.B) {
	bin := testkit.CodexCLI(b)
	var atomicRuns, cliRuns []codexTiming
	runAtomic := func() {
		srv := server(b, testkit.CodexFanOut)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		atomicRuns = append(atomicRuns, timeRun(b, atomicCodexCommand(b, ctx, bin, srv.URL()+"/v1"), srv, "atomic run --backend codex"))
	}
	runCLI := func() {
		srv := server(b, testkit.CodexFanOut)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cliRuns = append(cliRuns, timeRun(b, codexExecCommand(b, ctx, bin, srv.URL()+"/v1"), srv, "codex exec"))
	}
	for i := range b.N {
		if i%2 == 0 {
			runAtomic()
			runCLI()
		} else {
			runCLI()
			runAtomic()
		}
	}
	aw, cw := medianOf(atomicRuns, wallOf), medianOf(cliRuns, wallOf)
	// Each pair ran back to back, under the same load: the added time is
	// the median of the pairs' differences, not the difference of two
	// medians that the CLI's own variance (hundreds of ms on a busy
	// machine) moves independently.
	added := make([]time.Duration, len(atomicRuns))
	for i := range atomicRuns {
		added[i] = atomicRuns[i].wall - cliRuns[i].wall
	}
	b.Logf("added per pair: %v", added)
	b.ReportMetric(ms(aw), "atomic-ms")
	b.ReportMetric(ms(cw), "cli-ms")
	b.ReportMetric(ms(median(added)), "ms-added")
	b.ReportMetric(100*float64(median(added))/float64(cw), "pct-added")
	b.ReportMetric(ms(medianOf(atomicRuns, headOf)), "atomic-head-ms")
	b.ReportMetric(ms(medianOf(cliRuns, headOf)), "cli-head-ms")
	b.ReportMetric(ms(medianOf(atomicRuns, tailOf)), "atomic-tail-ms")
	b.ReportMetric(ms(medianOf(cliRuns, tailOf)), "cli-tail-ms")
	b.ReportMetric(ms(medianOf(atomicRuns, tailOf)-medianOf(cliRuns, tailOf)), "tail-ms-added")
	b.ReportMetric(ms(medianOf(atomicRuns, codexTiming.model)), "atomic-model-ms")
	b.ReportMetric(ms(medianOf(cliRuns, codexTiming.model)), "cli-model-ms")
}

func wallOf(c codexTiming) time.Duration { return c.wall }
func headOf(c codexTiming) time.Duration { return c.head }
func tailOf(c codexTiming) time.Duration { return c.tail }

// median is the median of f over runs.
func medianOf(runs []codexTiming, f func(codexTiming) time.Duration) time.Duration {
	ds := make([]time.Duration, len(runs))
	for i, r := range runs {
		ds[i] = f(r)
	}
	slices.Sort(ds)
	if n := len(ds); n%2 == 0 {
		return (ds[n/2-1] + ds[n/2]) / 2
	}
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
