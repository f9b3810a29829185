// Package headless runs Atomic without a terminal UI (atomic run): it
// submits one prompt, streams or collects the events, waits until the lead
// emits complete (so background work started by the run is finished and
// seen by the lead), and prints the result as text, JSON or stream-json.
package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/agent"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// Output formats.
const (
	FormatText       = "text"
	FormatJSON       = "json"
	FormatStreamJSON = "stream-json"
)

// Options of one headless run.
type Options struct {
	Prompt       string
	OutputFormat string
	// Timeout bounds the whole run's wall time (0: none).
	Timeout time.Duration
	// Grace bounds how long an interrupted run waits for its agents to
	// end before giving up (0: 10s).
	Grace time.Duration
	// Model is reported in results.
	Model string
}

// Streams are where output goes.
type Streams struct {
	Out io.Writer
	Err io.Writer
}

// Exit codes.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitInterrupted = 130
)

// ValidFormat checks an output format name.
func ValidFormat(f string) error {
	switch f {
	case FormatText, FormatJSON, FormatStreamJSON:
		return nil
	}
	return fmt.Errorf("unknown --output-format %q (want text, json or stream-json)", f)
}

// Run performs the run and returns the process exit code. ctx ending (SIGINT)
// interrupts the run: every agent is cancelled and marked interrupted, and
// the run still ends with complete.
func Run(ctx context.Context, rt *runtime.Runtime, opts Options, st Streams) int {
	if opts.OutputFormat == "" {
		opts.OutputFormat = FormatText
	}
	if opts.Grace <= 0 {
		opts.Grace = 10 * time.Second
	}
	start := time.Now()
	var enc *event.Encoder
	if opts.OutputFormat == FormatStreamJSON {
		enc = event.NewEncoder(st.Out)
		unsub := rt.Bus().Subscribe(func(e event.Event) {
			_ = enc.Encode(e)
			_ = enc.Flush()
		})
		defer unsub()
	}

	serveCtx, stopServe := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = rt.Serve(serveCtx)
	}()
	defer func() {
		stopServe()
		<-served
	}()

	rt.Submit(opts.Prompt)
	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var out runtime.Outcome
	reason := ""
	select {
	case out = <-rt.Completed():
	case <-ctx.Done():
		reason = "interrupted (SIGINT)"
	case <-timeout:
		reason = fmt.Sprintf("timeout: the run exceeded --timeout %s", opts.Timeout)
	}
	if reason != "" {
		rt.Interrupt(reason)
		grace := time.NewTimer(opts.Grace)
		defer grace.Stop()
		select {
		case out = <-rt.Completed():
		case <-grace.C:
			out.Err = fmt.Errorf("%s; agents did not stop within %s", reason, opts.Grace)
		}
		if out.Err == nil {
			out.Err = errors.New(reason)
		}
	}
	dur := time.Since(start)

	code := ExitOK
	if out.Err != nil {
		code = ExitError
		if ctx.Err() != nil {
			code = ExitInterrupted
		}
	}
	switch opts.OutputFormat {
	case FormatText:
		if out.Err == nil {
			fmt.Fprintln(st.Out, strings.TrimRight(out.Result, "\n"))
		}
	case FormatJSON:
		writeJSON(st.Out, buildResult(rt, out, dur, opts.Model))
	case FormatStreamJSON:
		_ = enc.Flush()
	}
	if out.Err != nil {
		fmt.Fprintf(st.Err, "atomic: %s\n", oneLine(out.Err.Error()))
	}
	return code
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// subtype names the result kind like Claude Code does.
func subtype(err error) string {
	switch {
	case err == nil:
		return "success"
	case errors.Is(err, agent.ErrMaxTurns):
		return "error_max_turns"
	}
	return "error_during_execution"
}
