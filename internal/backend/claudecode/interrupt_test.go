package claudecode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
)

// captureLines are the lines of a capture in testdata.
func captureLines(t *testing.T, file string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
}

// Told to stop its background agent alone (stop_task) while its lead is
// idle, the CLI wakes the lead with the stopped task's notice: a turn and a
// model request. Interrupted first, it stops the agent and starts nothing.
func TestReplayAStoppedBackgroundAgentWakesTheIdleLeadUnlessTheCLIWasInterruptedFirst(t *testing.T) {
	tests := []struct{ file, want string }{
		{"claude-bgstop.jsonl", "IAARBIAR"},
		{"claude-bginterrupt.jsonl", "IAARB"},
	}
	for _, tt := range tests {
		if got := signals(t, tt.file); got != tt.want {
			t.Errorf("%s: signals %s, want %s", tt.file, got, tt.want)
		}
	}
}

// replayInterrupt feeds a capture to a session whose Run waits for the first turn's
// result; after it, the lead is interrupted (quiet) when interrupted is
// set. It reports whether the session is then pending: whether the runtime
// would wait for a turn of the lead's.
func replayInterrupt(t *testing.T, file string, interrupted bool) bool {
	t.Helper()
	s := &Session{cfg: backend.Config{SessionID: "s1", AgentID: "lead", Sink: event.Discard}.WithDefaults(),
		answers: map[string]chan struct{}{}}
	s.tr = newTranslator("s1", "lead", event.Discard, nil)
	w := &turnWait{need: 1, done: make(chan *turnResult, 1)}
	s.wait = w
	for _, l := range captureLines(t, file) {
		st, err := s.tr.feed(l)
		if err != nil {
			t.Fatal(err)
		}
		if st.ask != nil {
			continue // allowed in the capture; the gate is not under test
		}
		s.handle(nil, st)
		if st.result != nil && w != nil {
			<-w.done
			w = nil
			s.mu.Lock()
			s.quiet = interrupted
			s.mu.Unlock()
		}
	}
	return s.Pending()
}

// After an interrupt the CLI starts no turn for the background agent it
// stopped, so that agent's end leaves nothing pending; a lead not
// interrupted is woken by it (the next test shows it), and pending.
func TestAfterAnInterruptAStoppedBackgroundAgentLeavesTheSessionNotPending(t *testing.T) {
	if replayInterrupt(t, "claude-bginterrupt.jsonl", true) {
		t.Error("interrupted: pending after the stopped agent's notice; the runtime would wait for a turn the CLI never starts")
	}
	if !replayInterrupt(t, "claude-bginterrupt.jsonl", false) {
		t.Error("not interrupted: a background agent's end must make the session pending (the CLI's turn for it)")
	}
}

// The CLI's answers to our control requests are read, in order, with the
// ids the requests were sent with; nothing else counts as an answer.
func TestFeedReadsTheRequestIDOfEveryControlResponse(t *testing.T) {
	var sent []string
	for _, l := range captureLines(t, "claude-bginterrupt.stdin.jsonl") {
		var m struct {
			Type      string `json:"type"`
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		if m.Type == "control_request" {
			sent = append(sent, m.RequestID)
		}
	}
	tr := newTranslator("s1", "lead", event.Discard, nil)
	var got []string
	for _, l := range captureLines(t, "claude-bginterrupt.jsonl") {
		st, err := tr.feed(l)
		if err != nil {
			t.Fatal(err)
		}
		if st.answered != "" {
			got = append(got, st.answered)
		}
	}
	if len(sent) != 3 || !slices.Equal(got, sent) {
		t.Errorf("answered %q, want the requests sent %q (initialize, interrupt, stop_task)", got, sent)
	}
}
