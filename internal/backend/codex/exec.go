package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/atomic-agent/atomic/internal/backend"
)

// ExecTranslator turns the stream of `codex exec --json` into §1 events
// through a Translator's item translation. It exists to replay captured
// exec streams; the live backend drives `codex app-server`, whose child
// threads report their own ends. exec shows only the lead's thread, so a
// sub-agent ends when a wait reports it done (its agents_states), and the
// lead's usage is turn.completed's, reported as a delta (exec's one turn).
type ExecTranslator struct {
	tr    *Translator
	turns int // turns started, for the ids exec does not give
}

// NewExecTranslator returns a translator of exec's events emitting to
// cfg.Sink. exec answers no approvals, so there is nothing to reply.
func NewExecTranslator(cfg backend.Config) *ExecTranslator {
	tr := NewTranslator(cfg, func(json.RawMessage, any, *rpcError) error { return nil })
	tr.statesEnd = true
	return &ExecTranslator{tr: tr}
}

// execEvent is one line of `codex exec --json`.
type execEvent struct {
	Type     string     `json:"type"`
	ThreadID string     `json:"thread_id"`
	Item     *execItem  `json:"item"`
	Usage    *execUsage `json:"usage"`
	Message  string     `json:"message"` // type error
	Error    *struct {
		Message string `json:"message"`
	} `json:"error"` // type turn.failed
}

// execItem is exec's thread item: the app-server's, with the names exec
// writes in snake case.
type execItem struct {
	item
	AggregatedOutput  *string               `json:"aggregated_output"`
	ExitCode          *int                  `json:"exit_code"`
	SenderThreadID    string                `json:"sender_thread_id"`
	ReceiverThreadIDs []string              `json:"receiver_thread_ids"`
	AgentsStates      map[string]agentState `json:"agents_states"`
}

// execUsage is turn.completed's usage.
type execUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
}

// Handle translates one line of the stream.
func (x *ExecTranslator) Handle(line []byte) (Note, error) {
	var e execEvent
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(line, &e); err != nil && !errors.As(err, &typeErr) {
		return Note{}, fmt.Errorf("codex exec: a line that is not a JSON event: %w", err)
	}
	t := x.tr
	if e.Type == "thread.started" {
		t.SetLead(e.ThreadID)
		return Note{}, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	lead := t.lead
	if lead == nil {
		return Note{}, fmt.Errorf("codex exec: %s before thread.started", e.Type)
	}
	switch e.Type {
	case "turn.started":
		x.turns++
		lead.X.turn = "exec-turn-" + strconv.Itoa(x.turns)
		return Note{LeadTurnStarted: lead.X.turn}, nil
	case "item.started", "item.completed":
		if e.Item != nil {
			t.item(lead, e.Type == "item.started", e.Item.appServer())
		}
	case "turn.completed":
		if u := e.Usage; u != nil {
			t.usage(lead, tokenCounts{InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens,
				CacheWriteInputTokens: u.CacheWriteInputTokens, OutputTokens: u.OutputTokens}, 0)
		}
		return t.turnCompleted(lead, turn{ID: lead.X.turn, Status: "completed"}), nil
	case "turn.failed":
		tu := turn{ID: lead.X.turn, Status: "failed"}
		if e.Error != nil {
			tu.Error = &struct {
				Message string `json:"message"`
			}{e.Error.Message}
		}
		return t.turnCompleted(lead, tu), nil
	case "error":
		return Note{}, nil // exec's own warnings (model metadata…); a failed turn says turn.failed
	}
	return Note{}, nil
}

// appServer is the app-server item exec's item stands for.
func (it *execItem) appServer() *item {
	out := it.item
	out.AggregatedOutput, out.ExitCode = it.AggregatedOutput, it.ExitCode
	out.SenderThreadID, out.ReceiverThreadIDs = it.SenderThreadID, it.ReceiverThreadIDs
	out.Status = camel(it.Status)
	switch it.Type {
	case "agent_message", "command_execution", "file_change", "mcp_tool_call":
		out.Type = camel(it.Type)
	case "collab_tool_call":
		out.Type = "collabAgentToolCall"
		out.Tool = camel(it.Tool) // spawn_agent → spawnAgent, send_input → sendInput…
	}
	out.AgentsStates = make(map[string]agentState, len(it.AgentsStates))
	for th, s := range it.AgentsStates {
		s.Status = camel(s.Status)
		out.AgentsStates[th] = s
	}
	return &out
}

// camel turns exec's snake_case names (in_progress, spawn_agent) into the
// app-server's (inProgress, spawnAgent).
func camel(s string) string {
	b := []byte(s)
	out := b[:0]
	up := false
	for _, c := range b {
		switch {
		case c == '_':
			up = true
		case up && 'a' <= c && c <= 'z':
			out, up = append(out, c-'a'+'A'), false
		default:
			out, up = append(out, c), false
		}
	}
	return string(out)
}

// endByStates ends the sub-agents a wait reports done, in a stable order:
// exec's only word on a sub-agent's end. t.mu is held.
func (t *Translator) endByStates(st map[string]agentState) {
	ths := make([]string, 0, len(st))
	for th := range st {
		ths = append(ths, th)
	}
	slices.Sort(ths)
	for _, th := range ths {
		c := t.of(th)
		if c == nil || c == t.lead {
			continue
		}
		switch s := st[th]; s.Status {
		case "completed", "interrupted":
			t.finish(c, s.Status, "")
		case "errored":
			t.finish(c, "failed", deref(s.Message))
		}
	}
}
