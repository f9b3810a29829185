package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	fastjson "github.com/segmentio/encoding/json"
)

// line is one stdout line of `claude -p --output-format stream-json
// --verbose`: the union of the fields its message kinds use (see the
// captures in testdata). Only what the adapter reads is decoded.
type line struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`

	// assistant / user
	Message         *message      `json:"message"`
	ParentToolUseID string        `json:"parent_tool_use_id"`
	ToolUseResult   toolUseResult `json:"tool_use_result"`

	// stream_event (--include-partial-messages): one event of the
	// Messages API stream of the agent named by parent_tool_use_id
	Event *streamEvent `json:"event"`

	// system/init; session_id is the CLI's id of the conversation, which
	// --resume continues
	Model     string   `json:"model"`
	Tools     []string `json:"tools"`
	SessionID string   `json:"session_id"`

	// system/task_* (task_id is the CLI's sub-agent id, agent_id on its
	// messages)
	TaskID         string `json:"task_id"`
	ToolUseID      string `json:"tool_use_id"`
	Description    string `json:"description"`
	SubagentType   string `json:"subagent_type"`
	IsBackgrounded bool   `json:"is_backgrounded"`
	// TaskType is local_agent for a sub-agent; a tool that runs long (a
	// Bash command) is a task too (local_bash), but no sub-agent.
	TaskType     string `json:"task_type"`
	Prompt       string `json:"prompt"`
	Status       string `json:"status"`
	Summary      string `json:"summary"`
	LastToolName string `json:"last_tool_name"`
	Patch        *struct {
		Status string `json:"status"`
	} `json:"patch"`

	// result
	Result       string              `json:"result"`
	IsError      bool                `json:"is_error"`
	StopReason   string              `json:"stop_reason"`
	NumTurns     int                 `json:"num_turns"`
	TotalCostUSD float64             `json:"total_cost_usd"`
	ModelUsage   map[string]modelUse `json:"modelUsage"`
	Errors       []string            `json:"errors"`
	Origin       *struct {
		Kind string `json:"kind"`
	} `json:"origin"`

	// usage is a token usage (result) or a task's usage (task_progress,
	// task_notification): one struct holds both spellings, so it is
	// decoded once with the line.
	Usage lineUsage `json:"usage"`

	// control_request (control_response lines, the answers to our
	// requests, are never decoded: see peek)
	RequestID string     `json:"request_id"`
	Request   canUseTool `json:"request"`
}

// decodeLine decodes raw into l in one pass for the forms the CLI
// writes most. Two fields take other forms that a struct cannot hold: a
// message's content as a string (the Messages API allows it; the CLI does
// not send it), and a tool_use_result that is a string (a failed or
// rejected call) or another tool's own shape. The first pass stops short
// on such a field alone, and those two are read again as they are.
//
// The lines that decode without error, nearly all, are decoded by
// segmentio's encoding/json, in one pass and several times faster (the
// adapter's throughput is mostly decoding); any other line is decoded
// again by encoding/json, whose errors and partial results the rarer forms
// rely on.
func decodeLine(raw []byte, l *line) error {
	if fastjson.Unmarshal(raw, l) == nil {
		return nil
	}
	*l = line{}
	err := json.Unmarshal(raw, l)
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) || !polymorphic(te.Field) {
		return err
	}
	var alt struct {
		Message *struct {
			Content content `json:"content"`
		} `json:"message"`
		ToolUseResult json.RawMessage `json:"tool_use_result"`
	}
	if err := json.Unmarshal(raw, &alt); err != nil {
		return err
	}
	if alt.Message != nil && l.Message != nil {
		l.Message.Content = blocks(alt.Message.Content)
	}
	l.ToolUseResult = toolUseResult{}
	if r := bytes.TrimLeft(alt.ToolUseResult, " \t\r\n"); len(r) > 0 && r[0] == '"' {
		_ = json.Unmarshal(r, &l.ToolUseResult.Text)
	} else if len(r) > 0 && r[0] == '{' {
		_ = json.Unmarshal(r, &l.ToolUseResult) // another tool's shape: what fits is kept
	}
	return nil
}

func polymorphic(field string) bool {
	return field == "message.content" || field == "tool_use_result" ||
		strings.HasPrefix(field, "tool_use_result.")
}

// lineUsage is the union of apiUsage (result lines) and taskUsage
// (task_progress, task_notification).
type lineUsage struct {
	apiUsage
	taskUsage
}

// kind and systemKind are the line types the translator reads, and for
// system lines the subtypes; peek lets every other line go undecoded.
// Switches, not maps: a package-level map is built at init in every
// process, Claude Code runs or not.
func kind(typ string) bool {
	switch typ {
	case "system", "assistant", "user", "result", "stream_event", "control_request", "control_cancel_request":
		return true
	}
	return false
}

func systemKind(sub string) bool {
	switch sub {
	case "init", "status", "task_started", "task_progress", "task_updated", "task_notification":
		return true
	}
	return false
}

// unused reports, from its first members alone, a line the translator
// would skip: the CLI writes "type" (and for system lines "subtype")
// first, so the lines it sends most bytes in and we never read (the
// initialize answer alone is 17 kB) cost a few bytes of scanning, not a
// decode. A line that does not start that way is decoded as usual.
func unused(raw []byte) bool {
	typ, rest, ok := member(raw, '{', "type")
	if !ok {
		return false
	}
	if !kind(string(typ)) {
		return true
	}
	switch string(typ) {
	case "system":
		sub, _, ok := member(rest, ',', "subtype")
		return ok && !systemKind(string(sub))
	case "stream_event":
		// {"type":"stream_event","event":{"type":...: of a message's
		// stream only its start and its deltas are read.
		ev, ok := key(rest, ',', "event")
		if !ok {
			return false
		}
		evType, _, ok := member(ev, '{', "type")
		return ok && string(evType) != "message_start" && string(evType) != "content_block_delta"
	}
	return false
}

// answered reads the request id of a control_response line from its first
// members, {"type":"control_response","response":{"subtype":…,
// "request_id":"…", as the CLI writes them, without decoding the rest (the
// initialize answer alone is 17 kB).
func answered(raw []byte) (string, bool) {
	typ, rest, ok := member(raw, '{', "type")
	if !ok || string(typ) != "control_response" {
		return "", false
	}
	resp, ok := key(rest, ',', "response")
	if !ok {
		return "", false
	}
	if _, resp, ok = member(resp, '{', "subtype"); !ok {
		return "", false
	}
	id, _, ok := member(resp, ',', "request_id")
	return string(id), ok
}

// key reads `<sep> "name" :` at the start of b (blanks allowed between
// tokens) and returns what follows.
func key(b []byte, sep byte, name string) ([]byte, bool) {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != sep {
		return nil, false
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	if len(b) < len(name)+2 || b[0] != '"' || string(b[1:len(name)+1]) != name || b[len(name)+1] != '"' {
		return nil, false
	}
	b = bytes.TrimLeft(b[len(name)+2:], " \t\r\n")
	if len(b) == 0 || b[0] != ':' {
		return nil, false
	}
	return bytes.TrimLeft(b[1:], " \t\r\n"), true
}

// member reads `<sep> "name" : "value"` at the start of b for a value
// without escapes, and returns the value and what follows it.
func member(b []byte, sep byte, name string) (value, rest []byte, ok bool) {
	b, ok = key(b, sep, name)
	if !ok || len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 || bytes.IndexByte(b[1:end+1], '\\') >= 0 {
		return nil, nil, false
	}
	return b[1 : end+1], b[end+2:], true
}

type message struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	// Content is a list of blocks on every line the CLI writes; the
	// string form a message may also take is rare enough to be read by a
	// second decode (see decodeLine), so the common form costs one.
	Content    blocks    `json:"content"`
	StopReason string    `json:"stop_reason"`
	Model      string    `json:"model"`
	Usage      *apiUsage `json:"usage"`
}

// streamEvent is a stream_event's event: only what text streaming needs
// (tool input deltas are not read; the assistant line carries the input).
type streamEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID string `json:"id"`
	} `json:"message"`
	Delta *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"delta"`
}

// blocks is a message's content in its list form.
type blocks []block

// content is a tool result's content: a string or a list of blocks. Its
// decoder runs on bytes the line's decode already checked and skipped,
// so only this form, which needs it, pays for it.
type content blocks

// The first byte picks the form, so each nesting level is decoded once
// rather than tried as a string first.
func (c *content) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimLeft(b, " \t\r\n"); len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = content{{Type: "text", Text: s}}
		return nil
	}
	if fastjson.Unmarshal(b, (*[]block)(c)) == nil {
		return nil
	}
	*c = nil
	return json.Unmarshal(b, (*[]block)(c))
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
	// tool_use
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// tool_result
	ToolUseID string  `json:"tool_use_id"`
	Content   content `json:"content"`
	IsError   bool    `json:"is_error"`
}

// text joins the text blocks of c.
func (c content) text() string { return blocks(c).text() }

// text joins the text blocks of bs.
func (bs blocks) text() string {
	var s string
	for _, b := range bs {
		if b.Type == "text" && b.Text != "" {
			if s != "" {
				s += "\n"
			}
			s += b.Text
		}
	}
	return s
}

// apiUsage is the Messages API's usage object.
type apiUsage struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
}

// taskUsage is a sub-agent's usage in task_progress and task_notification:
// the CLI reports only a token total.
type taskUsage struct {
	TotalTokens int64 `json:"total_tokens"`
	ToolUses    int   `json:"tool_uses"`
	DurationMS  int64 `json:"duration_ms"`
}

// modelUse is one model's cumulative usage in a result's modelUsage.
type modelUse struct {
	InputTokens         int64   `json:"inputTokens"`
	OutputTokens        int64   `json:"outputTokens"`
	CacheReadTokens     int64   `json:"cacheReadInputTokens"`
	CacheCreationTokens int64   `json:"cacheCreationInputTokens"`
	CostUSD             float64 `json:"costUSD"`
	ContextWindow       int64   `json:"contextWindow"`
}

// toolUseResult is a tool_use_result (on the user message carrying a
// tool_result): the structured result of an Agent call, or the string the
// CLI gives a call that failed or was rejected (Text).
type toolUseResult struct {
	Status  string  `json:"status"`
	AgentID string  `json:"agentId"`
	Content content `json:"content"`
	Text    string  `json:"-"`
}

// canUseTool is a control_request of subtype can_use_tool.
type canUseTool struct {
	Subtype   string          `json:"subtype"`
	ToolName  string          `json:"tool_name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	// AgentID is the CLI's task id of the sub-agent that asks; empty for
	// the lead.
	AgentID     string `json:"agent_id"`
	Description string `json:"description"`
	BlockedPath string `json:"blocked_path"`
}
