// Package opencode runs a session in OpenCode through `opencode serve`: an
// HTTP server on a free loopback port, started in its own process group and
// killed with the session, one OpenCode session per Atomic session, a
// prompt_async per Run and POST /session/{id}/abort on cancellation. The
// Translator turns the server's SSE event stream into SPEC §1 events: the
// lead session is the session's agent; each `task` tool part, linked to its
// child session (session.created with parentID, the part's
// metadata.sessionId), is a sub-agent with its own tool calls and messages.
// A sync sub-agent ends when the parent's part completes (after the child's
// session.idle); a background one (OpenCode's experimental background mode)
// stays background until the synthetic completion message OpenCode posts to
// the parent. permission.asked goes through the permission gate as the
// agent that asks.
package opencode
