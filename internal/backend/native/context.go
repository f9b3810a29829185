package native

import (
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// Context accounting. The provider's reported input of the last request
// (cache reads and writes included) is exact; what was added to the history
// since is estimated the way the wire carries it: four bytes a token, JSON
// escapes counted, a fixed size for an image. The estimate errs high so a
// request never overshoots the window by the estimate's error.

// imageTokens is what an image is taken to cost: about what a 1092×1092
// picture costs on Anthropic, the largest it sends without resizing.
const imageTokens = 1600

// partOverhead and msgOverhead are the bytes of JSON framing around a part
// and a message (type tags, ids, brackets).
const (
	partOverhead = 48
	msgOverhead  = 16
)

// escExtra is the bytes a JSON string adds to each byte: a quote,
// backslash or \n \t \r is escaped with a backslash; another control
// character, or <, > and & (which may be sent as \u003c), takes six bytes.
// A literal, not built at init: see package lazy.
var escExtra = [256]uint8{
	5, 5, 5, 5, 5, 5, 5, 5, 5, 1, 1, 5, 5, 1, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
	0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 5, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
}

// wireLen is how many bytes s takes in a JSON string. A table rather than
// branches: it runs over every byte of a history, often (a fifth of the
// branches' time on a 185k-token history).
func wireLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		n += int(escExtra[s[i]])
	}
	return n
}

// tokensOf turns wire bytes into tokens, rounding up.
func tokensOf(bytes int) int64 { return int64(bytes+3) / 4 }

// partTokens estimates one part.
func partTokens(p provider.Part) int64 {
	switch {
	case p.ToolCall != nil:
		return tokensOf(partOverhead + len(p.ToolCall.ID) + len(p.ToolCall.Name) + wireLen(string(p.ToolCall.Input)))
	case p.ToolResult != nil:
		return tokensOf(partOverhead+len(p.ToolResult.ToolCallID)+wireLen(p.ToolResult.Content)) +
			int64(len(p.ToolResult.Images))*imageTokens
	case p.Image != nil:
		return imageTokens
	}
	return tokensOf(partOverhead + wireLen(p.Text))
}

// messageTokens estimates one message.
func messageTokens(m provider.Message) int64 {
	n := tokensOf(msgOverhead)
	for _, p := range m.Parts {
		n += partTokens(p)
	}
	return n
}

// messagesTokens estimates msgs.
func messagesTokens(msgs []provider.Message) int64 {
	var n int64
	for _, m := range msgs {
		n += messageTokens(m)
	}
	return n
}

// tokensEach is the estimate of each message of msgs.
func tokensEach(msgs []provider.Message) []int64 {
	t := make([]int64, len(msgs))
	for i, m := range msgs {
		t[i] = messageTokens(m)
	}
	return t
}

// sum is the total of the estimates t.
func sum(t []int64) int64 {
	var n int64
	for _, x := range t {
		n += x
	}
	return n
}

// fixedTokens estimates what every request carries besides the messages:
// the system prompt and the tool definitions.
func fixedTokens(system string, specs []provider.ToolSpec) int64 {
	b := wireLen(system) + 64
	for _, t := range specs {
		b += partOverhead + len(t.Name) + wireLen(t.Description) + len(t.InputSchema)
	}
	return tokensOf(b)
}

// requestTokens estimates a whole request.
func requestTokens(system string, specs []provider.ToolSpec, msgs []provider.Message) int64 {
	return fixedTokens(system, specs) + messagesTokens(msgs)
}

// inputOf is a request's whole input as a provider reports it: Anthropic
// counts cache reads and writes apart from input_tokens, and the OpenAI
// provider reports cached tokens apart too.
func inputOf(u event.Usage) int64 {
	return u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
}

// window is the current model's context window, 0 when unknown.
func (s *Session) window() int64 { return s.cfg.Context.WindowOf(s.Model()) }

// nextTokens estimates the request the session would send now: the last
// reported input plus the messages added since, or, before any report (a
// resumed history) or after the history was rewritten, all of it.
func (s *Session) nextTokens(specs []provider.ToolSpec) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.base > 0 && s.baseMsgs <= len(s.history) {
		return s.base + messagesTokens(s.history[s.baseMsgs:])
	}
	return requestTokens(s.cfg.System, specs, s.history)
}

// nextTokensOf is nextTokens from toks, the estimates of the history's
// messages, so a caller that has them does not estimate them again.
func (s *Session) nextTokensOf(specs []provider.ToolSpec, toks []int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.base > 0 && s.baseMsgs <= len(toks) {
		return s.base + sum(toks[s.baseMsgs:])
	}
	return fixedTokens(s.cfg.System, specs) + sum(toks)
}

// measured records what the provider reported for a request that carried
// msgs messages and returns the context use it makes (input and answer).
func (s *Session) measured(msgs int, u event.Usage) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in := inputOf(u); in > 0 {
		s.base, s.baseMsgs = in, msgs
	}
	s.context = inputOf(u) + u.OutputTokens
	return s.context
}

// Context is the agent's context use in tokens (its last request's input
// and answer, or the estimate after a compaction) and its window (0:
// unknown).
func (s *Session) Context() (used, window int64) {
	s.mu.Lock()
	used = s.context
	s.mu.Unlock()
	return used, s.window()
}
