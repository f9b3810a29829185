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
	"sync"
	"syscall"
	"time"

	"github.com/atomic-agent/atomic/internal/backend/native"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/termtext"
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
	// DrainGrace bounds how long stream-json output may stall at the end
	// of the run before Atomic gives up writing it (0: DrainGrace).
	DrainGrace time.Duration
	// Durable, when set, is the session store: stream-json prints an
	// event only once it holds it.
	Durable Durability
	// Claude is what claude-stream-json's system init says of the run.
	Claude ClaudeInit
	// Input, when set, brings the prompts of the turns after Prompt's
	// (--input-format stream-json): the run ends when it is closed.
	Input <-chan string
}

// Streams are where output goes.
type Streams struct {
	Out io.Writer
	Err io.Writer
}

// Exit codes. An interrupted run exits with the shell's status for the
// signal that ended it (128 + its number): 130 for SIGINT, 143 for SIGTERM,
// 129 for SIGHUP, 141 when stdout was closed (SIGPIPE).
const (
	ExitOK          = 0
	ExitError       = 1
	ExitInterrupted = 130
	ExitStdoutGone  = 141
)

// Interrupted is the cause a run's context is cancelled with when the user
// or the system stopped it: Why names what came ("SIGTERM", "stdout
// closed") and Code is the exit status. A context cancelled without it
// counts as SIGINT.
type Interrupted struct {
	Why  string
	Code int
}

func (i Interrupted) Error() string { return "interrupted (" + i.Why + ")" }

// stdoutClosed is the interruption of a run whose stdout reader went away.
var stdoutClosed = Interrupted{Why: "stdout closed", Code: ExitStdoutGone}

// interruption is why ctx ended.
func interruption(ctx context.Context) Interrupted {
	var i Interrupted
	if errors.As(context.Cause(ctx), &i) {
		return i
	}
	return Interrupted{Why: "SIGINT", Code: ExitInterrupted}
}

// DrainGrace is how long, at the end of a stream-json run, stdout may
// accept nothing before Atomic stops waiting to write the last events.
const DrainGrace = 5 * time.Second

// ValidFormat checks an output format name.
func ValidFormat(f string) error {
	switch f {
	case FormatText, FormatJSON, FormatStreamJSON, FormatClaudeStreamJSON:
		return nil
	}
	return fmt.Errorf("unknown --output-format %q (want text, json, stream-json or claude-stream-json)", f)
}

// Run performs the run and returns the process exit code. ctx ending (a
// signal; its cause may be an Interrupted) interrupts the run: every agent
// is cancelled and marked interrupted, and the run still ends with
// complete. So does a failed write of stream-json output.
func Run(ctx context.Context, rt *runtime.Runtime, opts Options, st Streams) int {
	if opts.OutputFormat == "" {
		opts.OutputFormat = FormatText
	}
	if opts.Grace <= 0 {
		opts.Grace = 10 * time.Second
	}
	if opts.DrainGrace <= 0 {
		opts.DrainGrace = DrainGrace
	}
	start := time.Now()
	var stream *streamWriter
	var writeFailed <-chan struct{}
	// flushOut waits until the output's subscriber has every event emitted
	// so far (complete included): the bus delivers on its own goroutine.
	flushOut := func(context.Context) error { return nil }
	if opts.OutputFormat == FormatStreamJSON || opts.OutputFormat == FormatClaudeStreamJSON {
		var enc lineEncoder = event.NewEncoder(st.Out)
		if opts.OutputFormat == FormatClaudeStreamJSON {
			enc = newClaudeEncoder(st.Out, opts.Claude)
		}
		stream = newStreamWriterWith(enc, opts.Durable)
		writeFailed = stream.Failed()
		// After the store's subscription: the store was handed an event
		// before stream-json takes its Mark for it.
		sub := rt.Bus().SubscribeWith(stream.Emit, bus.Options{Name: "stream-json", After: rt.JournalSubscription()})
		defer sub.Stop()
		flushOut = sub.Flush
	}
	var said leadText
	if opts.OutputFormat == FormatText {
		sub := rt.Bus().SubscribeWith(said.Emit, bus.Options{Name: "text"})
		defer sub.Stop()
		flushOut = sub.Flush
	}

	// The run outlives ctx: a signal interrupts it (below), and the run
	// still ends with complete.
	run := rt.Start(context.WithoutCancel(ctx))
	defer func() {
		if err := run.Stop(opts.Grace); err != nil {
			fmt.Fprintf(st.Err, "atomic: %s\n", termtext.Sanitize(oneLine(err.Error())))
		}
	}()

	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var out runtime.Outcome
	reason := ""
	code := ExitError
	prompt, more := opts.Prompt, opts.Input != nil
	printed := false // the last turn's result (text or json) is out
	for {
		run.Submit(prompt)
		select {
		case out = <-run.Completed():
		case <-ctx.Done():
			i := interruption(ctx)
			reason, code = i.Error(), i.Code
		case <-writeFailed:
			reason, code = stdoutClosed.Error(), stdoutClosed.Code
		case <-timeout:
			reason = fmt.Sprintf("timeout: the run exceeded --timeout %s", opts.Timeout)
		}
		if reason != "" || !more {
			break
		}
		// A stream of input: each turn's result is printed as it ends, as
		// Claude Code does (stream-json printed it already).
		_ = flushOut(ctx)
		writeTurn(st.Out, opts, rt, out, time.Since(start), "")
		said.reset()
		printed = true
		next, ok := nextInput(ctx, opts.Input)
		if !ok {
			if ctx.Err() != nil { // stopped while waiting for input
				i := interruption(ctx)
				out.Err, code = i, i.Code
			}
			break
		}
		prompt, printed = next, false
	}
	if reason != "" {
		rt.Interrupt(reason)
		grace := time.NewTimer(opts.Grace)
		defer grace.Stop()
		select {
		case out = <-run.Completed():
		case <-grace.C:
			reason = fmt.Sprintf("%s; agents did not stop within %s", reason, opts.Grace)
		}
		out.Err = errors.New(reason)
	}
	dur := time.Since(start)
	fctx, cancelFlush := context.WithTimeout(context.Background(), opts.DrainGrace)
	_ = flushOut(fctx)
	cancelFlush()

	if out.Err == nil {
		code = ExitOK
	}
	switch opts.OutputFormat {
	case FormatText, FormatJSON:
		if !printed {
			interrupted := ""
			if reason != "" {
				interrupted = said.String()
			}
			writeTurn(st.Out, opts, rt, out, dur, interrupted)
		}
	case FormatStreamJSON, FormatClaudeStreamJSON:
		err := stream.Close(opts.DrainGrace)
		switch {
		case err == nil:
		case errors.Is(err, syscall.EPIPE) && reason == "":
			out.Err, code = stdoutClosed, stdoutClosed.Code
		case !errors.Is(err, syscall.EPIPE) && out.Err == nil:
			out.Err, code = fmt.Errorf("writing stream-json: %w", err), ExitError
		}
	}
	if out.Err != nil {
		fmt.Fprintf(st.Err, "atomic: %s\n", termtext.Sanitize(oneLine(out.Err.Error())))
	}
	return code
}

// writeTurn prints a turn's result as text or JSON; interrupted is what
// the lead had said when the run was interrupted ("": it was not).
func writeTurn(w io.Writer, opts Options, rt *runtime.Runtime, out runtime.Outcome, dur time.Duration, interrupted string) {
	switch opts.OutputFormat {
	case FormatText:
		text := out.Result
		if interrupted != "" {
			text = interrupted
		}
		if out.Err == nil || interrupted != "" {
			// The model's text goes to a terminal as text: its escape
			// sequences (clipboard, title, clear screen) are dropped.
			fmt.Fprintln(w, termtext.Sanitize(strings.TrimRight(text, "\n")))
		}
	case FormatJSON:
		writeJSON(w, buildResult(rt, out, dur, opts.Model))
	}
}

// nextInput is the next prompt of a stream of input; false at its end or
// when ctx ends first.
func nextInput(ctx context.Context, in <-chan string) (string, bool) {
	select {
	case p, ok := <-in:
		return p, ok
	case <-ctx.Done():
		return "", false
	}
}

// leadText follows what the lead has said in the run: the text of each of
// its messages, the one being streamed included, so an interrupted text
// run can print it.
type leadText struct {
	mu      sync.Mutex
	said    []string
	partial strings.Builder
}

// Emit is a bus subscriber.
func (l *leadText) Emit(e event.Event) {
	if e.AgentID != event.LeadID || e.ParentAgentID != "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch d := e.Data.(type) {
	case event.MessageDeltaData:
		if d.Discard {
			l.partial.Reset()
		} else {
			l.partial.WriteString(d.Text)
		}
	case event.MessageCompleteData:
		if s := strings.TrimSpace(d.Text); s != "" {
			l.said = append(l.said, s)
		}
		l.partial.Reset()
	}
}

// reset forgets what was said: a new turn begins.
func (l *leadText) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.said = nil
	l.partial.Reset()
}

// String is every message's text, then the text of one still streaming.
func (l *leadText) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	parts := l.said
	if s := strings.TrimSpace(l.partial.String()); s != "" {
		parts = append(parts[:len(parts):len(parts)], s)
	}
	return strings.Join(parts, "\n")
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
	case errors.Is(err, native.ErrMaxTurns):
		return "error_max_turns"
	}
	return "error_during_execution"
}
