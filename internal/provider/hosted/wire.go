// Package hosted runs a provider in a program of its own and speaks to it
// over that program's standard input and output, one JSON object a line.
// Atomic's OpenAI provider uses it: the official SDK that speaks the API
// is large, and linked into Atomic it cost every process its memory
// whichever provider the process used.
//
// The protocol: atomic writes the endpoint's settings as the first line,
// the program answers {"id":0,"ready":true} (or an error and ends), then
// atomic writes calls, {"id":N,"op":"stream","request":{…}},
// {"id":N,"op":"models"} and {"id":N,"op":"cancel"}, which may overlap;
// the program answers each with its chunks as they come and one final
// reply: the response, the models or the error. The program makes one
// attempt per call; the retries are the caller's, so the retry notices
// and the rules for what may be retried stay in one place. The program
// ends when its input does.
package hosted

import (
	"github.com/atomic-agent/atomic/internal/provider"
)

// Operations of a call.
const (
	opStream = "stream"
	opModels = "models"
	opCancel = "cancel"
)

// call is a message to the program.
type call struct {
	ID      int64             `json:"id"`
	Op      string            `json:"op"`
	Request *provider.Request `json:"request,omitempty"`
}

// reply is a message from the program: a chunk of a call, or its final
// reply (Response, Models with Done, or Error); ID 0 answers the settings.
type reply struct {
	ID       int64              `json:"id"`
	Ready    bool               `json:"ready,omitempty"`
	Chunk    *chunk             `json:"chunk,omitempty"`
	Response *provider.Response `json:"response,omitempty"`
	Models   []string           `json:"models,omitempty"`
	Done     bool               `json:"done,omitempty"`
	Error    *Error             `json:"error,omitempty"`
}

// final reports whether r ends its call.
func (r *reply) final() bool { return r.Response != nil || r.Done || r.Error != nil }

// chunk is a provider.Chunk as sent: text, thinking or a whole tool call
// (retry notices are the caller's own).
type chunk struct {
	Kind     provider.ChunkKind `json:"kind"`
	Text     string             `json:"text,omitempty"`
	ToolCall *provider.ToolCall `json:"tool_call,omitempty"`
}
