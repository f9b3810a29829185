// Package copilot runs a session in GitHub's Copilot CLI through its
// official Go SDK, which drives `copilot --headless --stdio` (JSON-RPC):
// one Copilot session per Atomic session, a session.send per Run,
// session.abort on cancellation. The Translator turns the session's events
// into SPEC §1 events: the events without an agentId are the lead's; a
// `task` call reserves a sub-agent, subagent.started (by toolCallId) binds
// the agentId its own events carry, and only its subagent.completed (or
// failed) ends it, so a background sub-agent stays background after the
// lead's turn ends. Approvals the CLI asks for go through the permission
// gate as the agent that asks, and are answered through the SDK.
package copilot
