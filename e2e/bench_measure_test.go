//go:build linux

package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit/peakrss"
)

var (
	shimOnce sync.Once
	shimPath string
	shimErr  error
)

// measureRun runs cmd (not started) to its end under the peakrss shim, so
// the memory figures are the process's own, not this test process's (a
// Go child's own rusage starts at its parent's high-water mark).
func measureRun(tb testing.TB, cmd *exec.Cmd) peakrss.Report {
	tb.Helper()
	return measureWith(tb, cmd, peakrss.Wrap)
}

// measureWith is measureRun with the shim's wrapping given: peakrss.WrapOwn
// where the tree's memory is not reported (it samples nothing).
func measureWith(tb testing.TB, cmd *exec.Cmd, wrap func(testing.TB, string, *exec.Cmd) *peakrss.Run) peakrss.Report {
	tb.Helper()
	shimOnce.Do(func() { shimPath, shimErr = peakrss.Build(filepath.Dir(binary)) })
	if shimErr != nil {
		tb.Fatal(shimErr)
	}
	run := wrap(tb, shimPath, cmd)
	var errb bytes.Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &errb
	}
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s: %v: %s", cmd.Args[4], err, errb.String())
	}
	r, err := run.Report()
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// measured is one measured run of atomic against the loopback model.
type measured struct {
	peakrss.Report
	// FirstRequest is from the process's start to its first model
	// request; ExitAfterAnswer from the end of the last answer to the
	// process's end.
	FirstRequest, ExitAfterAnswer time.Duration
	// SentKB is what the run sent the model: its requests' bodies.
	SentKB float64
	Out    string
	Log    []loopback.LogEntry
}

// runMeasured runs `atomic run` once on a fresh loopback model scripted
// by scenario.
func runMeasured(b *testing.B, scenario string, args ...string) measured {
	b.Helper()
	return runScenario(b, peakrss.Wrap, scenario, args...)
}

// runMeasuredOwn is runMeasured without the tree's memory figures: the
// shim does not sample the tree, which for a run of hundreds of processes
// took a fifth of a core from the run measured.
func runMeasuredOwn(b *testing.B, scenario string, args ...string) measured {
	b.Helper()
	return runScenario(b, peakrss.WrapOwn, scenario, args...)
}

func runScenario(b *testing.B, wrap func(testing.TB, string, *exec.Cmd) *peakrss.Run, scenario string, args ...string) measured {
	b.Helper()
	srv := server(b, scenario)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return runMeasuredWith(b, srv, command(b, ctx, srv, "anthropic", b.TempDir(), args...), wrap)
}

// runMeasuredCmd runs cmd, an atomic talking to srv, once.
func runMeasuredCmd(b *testing.B, srv *loopback.Server, cmd *exec.Cmd) measured {
	b.Helper()
	return runMeasuredWith(b, srv, cmd, peakrss.Wrap)
}

func runMeasuredWith(b *testing.B, srv *loopback.Server, cmd *exec.Cmd, wrap func(testing.TB, string, *exec.Cmd) *peakrss.Run) measured {
	b.Helper()
	before := len(srv.Log())
	var out bytes.Buffer
	cmd.Stdout = &out
	m := measured{Report: measureWith(b, cmd, wrap), Out: out.String()}
	log := srv.Log()[before:]
	m.Log = log
	if len(log) == 0 {
		b.Fatal("no model request")
	}
	m.FirstRequest = log[0].Start.Sub(m.Start)
	var last time.Time
	sent := 0
	for _, e := range log {
		sent += e.Bytes
		if e.End.After(last) {
			last = e.End
		}
	}
	m.ExitAfterAnswer = m.Start.Add(m.Wall).Sub(last)
	m.SentKB = float64(sent) / 1024
	return m
}
