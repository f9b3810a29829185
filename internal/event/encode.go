package event

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/termtext"
)

// Encoder writes events as JSON lines (stream-json). It is safe for
// concurrent use; each event is written whole.
type Encoder struct {
	mu  sync.Mutex
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

// NewEncoder returns an Encoder writing to w. Call Flush to push buffered
// lines out; the headless runner flushes after each event it prints.
func NewEncoder(w io.Writer) *Encoder {
	bw := bufio.NewWriterSize(w, 64<<10)
	// encoding/json leaves the C1 controls (U+0080–U+009F) raw, and a
	// terminal the lines are printed on may act on them.
	enc := json.NewEncoder(termtext.JSONWriter(bw))
	enc.SetEscapeHTML(false)
	return &Encoder{w: bw, enc: enc}
}

// Encode writes e as one line. The first write error is kept and returned by
// every later call.
func (e *Encoder) Encode(ev Event) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return e.err
	}
	e.err = e.enc.Encode(ev)
	return e.err
}

// Flush writes buffered lines.
func (e *Encoder) Flush() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return e.err
	}
	e.err = e.w.Flush()
	return e.err
}

// Raw is an event decoded from JSON with its payload left undecoded, for
// readers of stream-json (tests, adapters).
type Raw struct {
	Type          Type            `json:"type"`
	Time          string          `json:"time"`
	SessionID     string          `json:"session_id,omitempty"`
	AgentID       string          `json:"agent_id,omitempty"`
	ParentAgentID string          `json:"parent_agent_id,omitempty"`
	ToolCallID    string          `json:"tool_call_id,omitempty"`
	Data          json.RawMessage `json:"data,omitempty"`
}

// Event is r as an Event whose Data is the undecoded payload (Payload reads
// it); a time that does not parse is zero.
func (r Raw) Event() Event {
	t, _ := time.Parse(time.RFC3339Nano, r.Time)
	return Event{Type: r.Type, Time: t, SessionID: r.SessionID, AgentID: r.AgentID,
		ParentAgentID: r.ParentAgentID, ToolCallID: r.ToolCallID, Data: r.Data}
}
