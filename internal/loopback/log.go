package loopback

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"
)

// LogEntry records one request and how it was answered.
type LogEntry struct {
	Seq    int    `json:"seq"` // 1-based, in order of arrival
	API    string `json:"api"` // "anthropic", "openai", "openai-responses", or "" for other paths
	Method string `json:"method"`
	Path   string `json:"path"`
	Rule   string `json:"rule"` // the answering rule's name; "" when none answered
	Model  string `json:"model,omitempty"`
	Stream bool   `json:"stream"`
	// Bytes is the size of the request body as it came over the wire:
	// what the client paid to send (system prompt, tools, history).
	Bytes int `json:"bytes"`
	// Start is when the request arrived; End when the response was fully
	// written or the connection closed, zero while the request is in
	// flight. The entry is in the log from the request's arrival, and
	// complete before the client can see the end of the response.
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	Status int       `json:"status"` // HTTP status sent; 0 if the client left before headers
	// Outcome says how the answer ended when it was not a plain success:
	// "no rule matched", "cut after 3 events", "client disconnected", ...
	Outcome  string       `json:"outcome,omitempty"`
	System   string       `json:"system,omitempty"`
	Tools    []string     `json:"tools,omitempty"`
	Messages []LogMessage `json:"messages,omitempty"`

	// InputTokens is the request's estimated input (EstimateTokens of
	// Bytes), logged for every request that parsed, refused or not: the
	// figure the context window check compares.
	InputTokens int `json:"input_tokens,omitempty"`
	// ContextWindow is the model's window the request was checked
	// against; 0 when the scenario sets none.
	ContextWindow int `json:"context_window,omitempty"`
	// Prompt caching (cache.go): the tokens read from a prefix an earlier
	// request wrote and the hash of that prefix, the tokens written, and
	// the Anthropic breakpoints in order.
	CacheReadTokens  int             `json:"cache_read_tokens,omitempty"`
	CacheReadHash    string          `json:"cache_read_hash,omitempty"`
	CacheWriteTokens int             `json:"cache_write_tokens,omitempty"`
	CacheBreakpoints []LogBreakpoint `json:"cache_breakpoints,omitempty"`
	PromptCacheKey   string          `json:"prompt_cache_key,omitempty"`
	// Thinking asked for: Anthropic thinking.budget_tokens (-1: adaptive),
	// OpenAI reasoning_effort or reasoning.effort; and how many thinking
	// blocks or reasoning items with encrypted content the client sent
	// back, each verified unchanged.
	ThinkingBudget   int    `json:"thinking_budget,omitempty"`
	ReasoningEffort  string `json:"reasoning_effort,omitempty"`
	ThinkingReturned int    `json:"thinking_returned,omitempty"`
}

// LogBreakpoint is an Anthropic cache_control breakpoint: where it is
// ("tools[3]", "system[0]", "messages[4].content[1]"), the tokens of the
// prefix up to it, and that prefix's hash, equal in two requests exactly
// when the prefixes are byte-identical (cache_control aside).
type LogBreakpoint struct {
	Place  string `json:"place"`
	Tokens int    `json:"tokens"`
	Hash   string `json:"hash"`
}

// LogMessage is a conversation message in an API-neutral compact form.
// System and developer messages are in LogEntry.System instead; OpenAI
// role=tool messages and Responses call outputs are role "tool" messages
// that carry one tool result each. The Responses API's assistant items of
// one model turn (text, calls) are one assistant message.
type LogMessage struct {
	Role        string          `json:"role"`
	Text        string          `json:"text,omitempty"`
	ToolCalls   []LogToolCall   `json:"tool_calls,omitempty"`
	ToolResults []LogToolResult `json:"tool_results,omitempty"`
	// Images are the pictures of a user message (Chat Completions sends a
	// tool's images this way: its tool messages take text only).
	Images []LogImage `json:"images,omitempty"`
}

// LogToolCall is a tool call the client sent back in an assistant message.
type LogToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// LogToolResult is a tool result the client sent.
type LogToolResult struct {
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error,omitempty"`
	// Images are the image blocks of an Anthropic tool_result.
	Images []LogImage `json:"images,omitempty"`
}

// LogImage is an image the client sent: its bytes decoded from base64 (a
// data URL's too), or the URL it points at.
type LogImage struct {
	MediaType string `json:"media_type,omitempty"`
	Data      []byte `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

// Done reports whether the request has ended.
func (e LogEntry) Done() bool { return !e.End.IsZero() }

// Duration is how long the request took; zero while it is in flight.
func (e LogEntry) Duration() time.Duration {
	if !e.Done() {
		return 0
	}
	return e.End.Sub(e.Start)
}

// LastUserText is the text of the last user message that has text.
func (e LogEntry) LastUserText() string {
	for _, m := range slices.Backward(e.Messages) {
		if m.Role == "user" && m.Text != "" {
			return m.Text
		}
	}
	return ""
}

// LastToolResults are the tool results the client sent after the last
// assistant message (every API).
func (e LogEntry) LastToolResults() []LogToolResult {
	var out []LogToolResult
	for _, m := range slices.Backward(e.Messages) {
		if m.Role == "assistant" {
			break
		}
		out = append(slices.Clone(m.ToolResults), out...)
	}
	return out
}

// TotalBytes is the sum of the entries' request body sizes.
func TotalBytes(entries []LogEntry) int {
	n := 0
	for _, e := range entries {
		n += e.Bytes
	}
	return n
}

// ByRule returns the entries answered by the named rule, in order.
func ByRule(entries []LogEntry, rule string) []LogEntry {
	var out []LogEntry
	for _, e := range entries {
		if e.Rule == rule {
			out = append(out, e)
		}
	}
	return out
}

// MaxConcurrent is the largest number of requests in flight at one
// instant. Requests that merely touch (one ends as the other starts) do
// not overlap; a request not yet done is open to the end.
func MaxConcurrent(entries []LogEntry) int {
	type edge struct {
		at    time.Time
		delta int
	}
	edges := make([]edge, 0, 2*len(entries))
	for _, e := range entries {
		edges = append(edges, edge{e.Start, +1})
		if e.Done() {
			edges = append(edges, edge{e.End, -1})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // ends before starts at the same instant
	})
	best, cur := 0, 0
	for _, e := range edges {
		cur += e.delta
		best = max(best, cur)
	}
	return best
}

// ReadLog reads a request log written by Run's --log flag (JSON lines) or
// served by GET /_log (a JSON array).
func ReadLog(r io.Reader) ([]LogEntry, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading request log: %w", err)
	}
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var entries []LogEntry
		if err := json.Unmarshal(data, &entries); err != nil {
			return nil, fmt.Errorf("request log is not a JSON array of entries: %w", err)
		}
		return entries, nil
	}
	var entries []LogEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e LogEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("request log line %d: %w", n, err)
		}
		entries = append(entries, e)
	}
	return entries, sc.Err()
}
