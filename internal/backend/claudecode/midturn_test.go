package claudecode

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

// signals feeds a capture and spells what its steps tell the session, in
// order: B a background task ended, A the lead sent a request, R a turn's
// result, I the lead began a turn.
func signals(t *testing.T, file string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	tr := newTranslator("s1", "lead", event.Discard, nil)
	var b strings.Builder
	for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		st, err := tr.feed(l)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case st.bgDone:
			b.WriteByte('B')
		case st.leadAsks:
			b.WriteByte('A')
		case st.result != nil:
			b.WriteByte('R')
		case st.leadBegan:
			b.WriteByte('I')
		}
	}
	return b.String()
}

// The session owes the lead a turn of its own exactly when a background
// task ended after the lead's last request of a turn: what the CLI does.
func TestReplayABackgroundAgentEndingMidTurnIsHandedOverInTheTurnOrAfterIt(t *testing.T) {
	tests := []struct{ file, want string }{
		// Its result went into the lead's next request: one turn.
		{"claude-midturn.jsonl", "IAABAR"},
		// The lead's last request was out when it ended: the CLI ran a
		// turn of its own for it.
		{"claude-slowanswer.jsonl", "IAABRIAR"},
	}
	for _, tt := range tests {
		if got := signals(t, tt.file); got != tt.want {
			t.Errorf("%s: signals %s, want %s", tt.file, got, tt.want)
		}
	}
}

// Lines of a real run (Claude Code 2.1.330, the midturn scenario): a Bash
// call that ran long became a task of its own. It is no sub-agent.
func TestALongBashTaskIsNoSubagent(t *testing.T) {
	got := feedLines(t,
		`{"type":"assistant","message":{"id":"msg_lb000006","content":[{"type":"tool_use","id":"toolu_lb000007","name":"Bash","input":{"command":"sleep 3; echo slept","description":"Slow work"}}]},"parent_tool_use_id":null}`,
		`{"type":"system","subtype":"task_started","task_id":"bci5uno3h","run_id":"0mwsao34j-2f4f5675","tool_use_id":"toolu_lb000007","description":"Slow work","is_backgrounded":false,"task_type":"local_bash","uuid":"79fdb2e0-80a8-4ca2-af9f-b603e209d1ca","session_id":"1f43b6b4-df51-4c65-819d-9d0b39461dd8"}`,
		`{"type":"system","subtype":"task_notification","task_id":"bci5uno3h","run_id":"0mwsao34j-2f4f5675","tool_use_id":"toolu_lb000007","status":"completed","output_file":"","summary":"Slow work","uuid":"1e08a2d5-370d-4c9e-840a-9ade803f674d","session_id":"1f43b6b4-df51-4c65-819d-9d0b39461dd8"}`,
		`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_lb000007","type":"tool_result","content":"slept","is_error":false}]},"parent_tool_use_id":null,"tool_use_result":{"stdout":"slept","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}}`,
	)
	var types []event.Type
	for _, e := range got {
		types = append(types, e.Type)
		if e.AgentID != "lead" {
			t.Errorf("%s of %s: the Bash task became an agent", e.Type, e.AgentID)
		}
	}
	if want := []event.Type{event.ToolStart, event.ToolComplete}; !slices.Equal(types, want) {
		t.Errorf("events %v, want %v", types, want)
	}
}
