package headless

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// cancelOnFirst cancels ctx with cause when the lead first emits typ.
func cancelOnFirst(t *testing.T, rt *runtime.Runtime, typ event.Type, cause error) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	var once sync.Once
	unsub := rt.Bus().Subscribe(func(e event.Event) {
		if e.Type == typ && e.AgentID == event.LeadID {
			once.Do(func() { go cancel(cause) })
		}
	})
	t.Cleanup(unsub)
	return ctx
}

func TestInterruptedTextRunPrintsTheLeadsTextSoFarAndNamesTheSignalOnce(t *testing.T) {
	rt := newRuntime(t, `
rules:
  - {name: first, match: {has_tool_results: false}, respond: {text: "Looking at the files.", tool_calls: [{name: ls, input: {path: "."}}]}}
  - {name: slow, match: {has_tool_results: true}, respond: {text: "The answer is forty-two, and here is why it matters.", chunk_delay_ms: 500}}
`)
	// Interrupt at the first delta of the second message.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	completes := 0
	var once sync.Once
	unsub := rt.Bus().Subscribe(func(e event.Event) {
		switch {
		case e.AgentID != event.LeadID:
		case e.Type == event.MessageComplete:
			completes++
		case e.Type == event.MessageDelta && completes == 1:
			once.Do(func() { go cancel(Interrupted{Why: "SIGTERM", Code: 143}) })
		}
	})
	defer unsub()

	var out, errb bytes.Buffer
	code := Run(ctx, rt, Options{Prompt: "go"}, Streams{Out: &out, Err: &errb})
	if code != 143 {
		t.Fatalf("exit %d, want 143; stderr %q", code, errb.String())
	}
	if errb.String() != "atomic: interrupted (SIGTERM)\n" {
		t.Fatalf("stderr %q, want the interruption named once", errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || lines[0] != "Looking at the files." || !strings.HasPrefix("The answer is forty-two, and here is why it matters.", lines[1]) || lines[1] == "" {
		t.Fatalf("stdout %q: want the last complete message and the partial one", out.String())
	}
}

func TestInterruptWithoutACauseCountsAsSIGINT(t *testing.T) {
	rt := newRuntime(t, `
rules:
  - {respond: {text: "late", delay_ms: 20000}}
`)
	ctx := cancelOnFirst(t, rt, event.SessionStart, context.Canceled)
	var out, errb bytes.Buffer
	code := Run(ctx, rt, Options{Prompt: "go"}, Streams{Out: &out, Err: &errb})
	if code != ExitInterrupted || errb.String() != "atomic: interrupted (SIGINT)\n" || out.Len() != 0 {
		t.Fatalf("code %d stdout %q stderr %q", code, out.String(), errb.String())
	}
}

// stalledWriter blocks every Write until released, like a stdout nobody
// reads.
type stalledWriter struct{ release chan struct{} }

func (w stalledWriter) Write(p []byte) (int, error) {
	<-w.release
	return 0, os.ErrClosed
}

func stalled(t *testing.T) stalledWriter {
	w := stalledWriter{release: make(chan struct{})}
	t.Cleanup(func() { close(w.release) })
	return w
}

const fanOut = `
rules:
  - {name: final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "summary"}}
  - name: fan
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "one", prompt: "ONE"}}
        - {name: task, input: {description: "two", prompt: "TWO"}}
  - {name: sub, respond: {text: "fine", delay_ms: 50}}
`

// runBounded runs Run and fails the test if it does not return in time.
func runBounded(t *testing.T, ctx context.Context, rt *runtime.Runtime, opts Options, st Streams) int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- Run(ctx, rt, opts, st) }()
	select {
	case code := <-done:
		return code
	case <-time.After(10 * time.Second):
		t.Fatal("the run never returned: its output stalled it")
		return 0
	}
}

func TestStalledStdoutDoesNotStallTheAgentsAndTheRunGivesUpWritingAfterTheDrainGrace(t *testing.T) {
	rt := newRuntime(t, fanOut)
	var errb bytes.Buffer
	start := time.Now()
	code := runBounded(t, context.Background(), rt, Options{Prompt: "go", OutputFormat: FormatStreamJSON, DrainGrace: 300 * time.Millisecond},
		Streams{Out: stalled(t), Err: &errb})
	if code != ExitError || !strings.Contains(errb.String(), "stdout accepted no output") {
		t.Fatalf("code %d stderr %q", code, errb.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
	for _, a := range rt.Bus().Agents() {
		if a.Status != "completed" {
			t.Fatalf("agent %s is %s: a stalled stdout held it up", a.ID, a.Status)
		}
	}
}

func TestInterruptWorksWhileStdoutIsStalled(t *testing.T) {
	rt := newRuntime(t, `
rules:
  - {respond: {text: "late", delay_ms: 20000}}
`)
	ctx := cancelOnFirst(t, rt, event.SessionStart, Interrupted{Why: "SIGINT", Code: 130})
	var errb bytes.Buffer
	code := runBounded(t, ctx, rt, Options{Prompt: "go", OutputFormat: FormatStreamJSON, DrainGrace: 200 * time.Millisecond},
		Streams{Out: stalled(t), Err: &errb})
	if code != 130 || errb.String() != "atomic: interrupted (SIGINT)\n" {
		t.Fatalf("code %d stderr %q", code, errb.String())
	}
}

func TestClosedStdoutPipeInterruptsTheRun(t *testing.T) {
	rt := newRuntime(t, `
rules:
  - {respond: {text: "late", delay_ms: 20000}}
`)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	var errb bytes.Buffer
	start := time.Now()
	code := runBounded(t, context.Background(), rt, Options{Prompt: "go", OutputFormat: FormatStreamJSON}, Streams{Out: w, Err: &errb})
	if code != ExitStdoutGone || errb.String() != "atomic: interrupted (stdout closed)\n" {
		t.Fatalf("code %d stderr %q", code, errb.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a closed stdout should end the run at once, took %s", d)
	}
}
