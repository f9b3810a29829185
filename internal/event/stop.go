package event

// StopReason says why a model turn stopped: message.complete's and
// turn.end's stop_reason. The string is its wire value.
//
// The constants are what Atomic itself produces; an external CLI's own
// reason (Claude Code's stop_sequence, a Codex turn's status) passes
// through as the CLI spelt it.
type StopReason string

// The stop reasons Atomic produces.
const (
	// StopEndTurn: the model finished its answer.
	StopEndTurn StopReason = "end_turn"
	// StopToolUse: the model stopped to call tools (a native loop's
	// intermediate response; a turn goes on after it).
	StopToolUse StopReason = "tool_use"
	// StopMaxTokens: the response hit its token limit.
	StopMaxTokens StopReason = "max_tokens"
	// StopOther: the model or CLI stopped for a reason Atomic does not
	// name (a content filter, a turn the CLI never reported).
	StopOther StopReason = "other"
	// StopInterrupted: the user interrupted the turn.
	StopInterrupted StopReason = "interrupted"
	// StopError: the turn failed; turn.end's error says why.
	StopError StopReason = "error"
)
