// Package provider defines how Atomic talks to a model: one streamed turn at a
// time, in a wire-neutral message format that the Anthropic and OpenAI
// implementations (sub-packages) translate to their APIs.
package provider

import (
	"context"
	"encoding/json"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Provider streams one model turn.
type Provider interface {
	// Name is the provider's name ("anthropic", "openai", "demo").
	Name() string
	// Model is the model used when a request names none.
	Model() string
	// Stream sends req and calls on for every piece of the answer as it
	// arrives, then returns the whole answer. Retries happen inside Stream
	// (a retried attempt is announced with a ChunkRetry chunk so callers can
	// drop partial text). on is called from Stream's goroutine only.
	Stream(ctx context.Context, req Request, on func(Chunk)) (*Response, error)
}

// Role of a message.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one entry of a conversation.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// Part is a piece of a message: text, an image (user), a tool call
// (assistant), a tool result (user) or the model's thinking (assistant).
// Exactly one of its fields is set.
type Part struct {
	Text       string      `json:"text,omitempty"`
	Image      *Image      `json:"image,omitempty"`
	ToolCall   *ToolCall   `json:"tool_call,omitempty"`
	ToolResult *ToolResult `json:"tool_result,omitempty"`
	Thinking   *Thinking   `json:"thinking,omitempty"`
}

// Thinking is a block of the model's thinking as the API handed it out.
// It is kept in the history and sent back unchanged: inside a tool loop
// Anthropic requires the turn's thinking blocks back with their
// signatures, and refuses any that changed.
type Thinking struct {
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	// Redacted is a redacted_thinking block's opaque data (Text is empty).
	Redacted string `json:"redacted,omitempty"`
}

// ToolCall is the model's request to run a tool.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	ToolCallID string  `json:"tool_call_id"`
	Content    string  `json:"content"`
	IsError    bool    `json:"is_error,omitempty"`
	Images     []Image `json:"images,omitempty"`
}

// Image is a picture in a user message or a tool result.
type Image struct {
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"` // raw bytes (base64 in JSON)
}

// TakesImages reports whether the provider named name sends images in
// user messages to its model (the demo model reads text only).
func TakesImages(name string) bool { return name == "anthropic" || name == "openai" }

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Request is one turn's input.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	// CacheKey groups requests that share a prompt prefix, for providers
	// whose cache routes by a key (OpenAI's prompt_cache_key); "" sends
	// none. See PromptCacheKey.
	CacheKey string
	// OneOff marks a request whose prefix no later request reads (a
	// compaction's summary): it carries no cache breakpoints, since
	// writing a cache costs more than reading the input plain.
	OneOff bool
	// Effort asks the model to think first (empty: no thinking).
	Effort Effort
}

// StopReason says why the model stopped: the event package's type, so a
// response's reason reaches message.complete and turn.end unconverted.
type StopReason = event.StopReason

// Stop reasons, normalised across APIs.
const (
	StopEndTurn   = event.StopEndTurn
	StopToolUse   = event.StopToolUse
	StopMaxTokens = event.StopMaxTokens
	StopOther     = event.StopOther
)

// Response is a whole model turn.
type Response struct {
	Text string
	// Thinking are the turn's thinking blocks, in order; not part of Text.
	Thinking   []Thinking
	ToolCalls  []ToolCall
	StopReason StopReason
	Usage      event.Usage
	Model      string
}

// Message returns the assistant message for the history.
func (r *Response) Message() Message {
	m := Message{Role: RoleAssistant}
	// Thinking first: the API wants an assistant turn's thinking blocks
	// before its text and tool calls.
	for i := range r.Thinking {
		t := r.Thinking[i]
		m.Parts = append(m.Parts, Part{Thinking: &t})
	}
	if r.Text != "" {
		m.Parts = append(m.Parts, Part{Text: r.Text})
	}
	for i := range r.ToolCalls {
		tc := r.ToolCalls[i]
		m.Parts = append(m.Parts, Part{ToolCall: &tc})
	}
	return m
}

// ChunkKind names what a Chunk carries.
type ChunkKind int

// Chunk kinds.
const (
	// ChunkText carries a text delta.
	ChunkText ChunkKind = iota
	// ChunkToolCall carries a complete tool call (input assembled).
	ChunkToolCall
	// ChunkRetry says the attempt failed and is being retried after
	// Delay; text streamed so far in this turn is void.
	ChunkRetry
	// ChunkThinking carries a delta of the model's thinking text.
	ChunkThinking
)

// Chunk is one streamed piece of a turn.
type Chunk struct {
	Kind     ChunkKind
	Text     string
	ToolCall *ToolCall
	// Retry details (ChunkRetry): the attempt about to be made, the most
	// the policy allows for this failure, the wait before it, the failure
	// in a few words ("529 overloaded", "connection refused") and in full.
	Attempt     int
	MaxAttempts int
	Delay       time.Duration
	Reason      string
	Err         error
}
