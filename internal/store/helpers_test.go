package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// warnings collects what a Recorder warns.
type warnings struct {
	mu  sync.Mutex
	got []error
}

func (w *warnings) warn(err error) {
	w.mu.Lock()
	w.got = append(w.got, err)
	w.mu.Unlock()
}

func (w *warnings) all() []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]error(nil), w.got...)
}

func dbPath(t testing.TB) string { return filepath.Join(t.TempDir(), "state", "atomic", FileName) }

func meta(id string) Meta {
	return Meta{ID: id, Dir: "/work/project", Backend: "native", Model: "claude-test"}
}

var epoch = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// sampleEvents are n events shaped like a run's: deltas, tool calls,
// sub-agent progress and usage.
func sampleEvents(id string, n int) []event.Event {
	out := make([]event.Event, 0, n)
	for i := 0; len(out) < n; i++ {
		at := epoch.Add(time.Duration(i) * time.Millisecond)
		e := event.Event{Time: at, SessionID: id, AgentID: "lead"}
		switch i % 5 {
		case 0:
			e.Type, e.Data = event.MessageDelta, event.MessageDeltaData{Text: fmt.Sprintf("chunk %d of the answer, a few words long ", i)}
		case 1:
			e.Type, e.ToolCallID = event.ToolStart, fmt.Sprintf("call_%d", i)
			e.Data = event.ToolStartData{Name: "grep", Input: json.RawMessage(`{"pattern":"func .*Handler","path":"internal/"}`)}
		case 2:
			e.Type, e.ToolCallID = event.ToolComplete, fmt.Sprintf("call_%d", i-1)
			e.Data = event.ToolCompleteData{Name: "grep", Success: true, Result: "internal/cli/run.go:21:func runHeadless(ctx context.Context, args []string, ios IOStreams) int\ninternal/cli/tui.go:23:func runTUI(ctx context.Context, args []string, ios IOStreams) int"}
		case 3:
			e.Type, e.AgentID, e.ParentAgentID = event.SubagentUpdate, "explore-1", "lead"
			e.Data = event.SubagentUpdateData{CurrentTool: "read internal/cli/cli.go", ToolUses: i, Usage: event.Usage{InputTokens: int64(100 * i), OutputTokens: int64(i)}}
		case 4:
			e.Type = event.UsageUpdate
			e.Data = event.UsageUpdateData{Usage: event.Usage{InputTokens: int64(i), OutputTokens: 7}, Total: event.Usage{InputTokens: int64(2 * i)}}
		}
		out = append(out, e)
	}
	return out
}

// streamJSON is what stream-json prints for events, one line each.
func streamJSON(t testing.TB, events []event.Event) []string {
	t.Helper()
	var buf bytes.Buffer
	enc := event.NewEncoder(&buf)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = string(l)
	}
	return out
}

// stored reads session id's events back.
func stored(t testing.TB, path, id string) []string {
	t.Helper()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out []string
	if err := st.Events(context.Background(), id, func(l []byte) error {
		out = append(out, string(l))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// savedSession reads session id's row back.
func savedSession(t testing.TB, path, id string) Session {
	t.Helper()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Session(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
