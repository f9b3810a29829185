package acp

import (
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// notices carries a session's warnings (an MCP server that failed to
// start, a config problem) to the client, not only to stderr: those said
// before the session exists wait for it (attach).
type notices struct {
	mu      sync.Mutex
	pending []string
	s       *session
}

// warn implements Spec.Warn.
func (n *notices) warn(text string) {
	n.mu.Lock()
	s := n.s
	if s == nil {
		n.pending = append(n.pending, text)
	}
	n.mu.Unlock()
	if s != nil {
		s.notice(text)
	}
}

// attach sends the warnings said so far, and every later one, to s.
func (n *notices) attach(s *session) {
	n.mu.Lock()
	pending := n.pending
	n.pending, n.s = nil, s
	n.mu.Unlock()
	for _, text := range pending {
		s.notice(text)
	}
}

// notice shows a warning as the agent's message: at once during a prompt
// (an MCP server fails while the lead's first request waits for the
// servers, before its answer), else as the next prompt's turn starts, since
// clients show a message only as part of a prompt's answer.
func (s *session) notice(text string) {
	u := noticeUpdate(text)
	s.mu.Lock()
	if s.waiter == nil {
		s.notes = append(s.notes, u)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.push(u)
}

func noticeUpdate(text string) sdk.SessionUpdate {
	return sdk.UpdateAgentMessageText("⚠ Atomic: " + text + "\n\n")
}
