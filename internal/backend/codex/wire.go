package codex

import (
	"bytes"
	"encoding/json"
	"errors"

	fastjson "github.com/segmentio/encoding/json"
)

// message is one JSON-RPC 2.0 message of `codex app-server` (newline-
// delimited JSON on stdio). A request has Method and ID, a notification
// Method only, a response ID and Result or Error.
type message struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// isRequest: a request (it must be answered).
func (m *message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// isResponse: the answer to a request.
func (m *message) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// inbound is one message read from the server, decoded in one pass with
// its params straight into the union Atomic reads: decoding is nearly all
// of the adapter's cost, and an envelope with raw params decoded again
// scanned every byte four times.
type inbound struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params params          `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// isRequest: a server→client request (it must be answered).
func (m *inbound) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// isResponse: the answer to one of our requests.
func (m *inbound) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// decodeLine decodes one line of the server's stdout. A field of an
// unexpected type (a newer CLI) leaves the rest decoded; ok is false for a
// line to drop: not a JSON object, or a notification Atomic never reads.
// Lines that decode without error, nearly all, are decoded by segmentio's
// encoding/json in one pass (the adapter's throughput is mostly decoding);
// any other line is decoded again by encoding/json, whose partial results
// on a type error the rule above relies on.
func decodeLine(line []byte) (m inbound, ok bool) {
	if unread(line) {
		return inbound{}, false
	}
	if fastjson.Unmarshal(line, &m) == nil {
		return m, true
	}
	m = inbound{}
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(line, &m); err != nil && !errors.As(err, &typeErr) {
		return inbound{}, false
	}
	return m, true
}

// turn is the turn object of turn/started, turn/completed and turn/start's
// result.
type turn struct {
	ID     string `json:"id"`
	Status string `json:"status"` // inProgress, completed, interrupted, failed
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// params is the union of the notification params Atomic reads, decoded
// once per notification (decoding dominates the translator's cost).
type params struct {
	ThreadID string `json:"threadId"`
	// turn/started, turn/completed
	Turn turn `json:"turn"`
	// item/started, item/completed (pointers keep the union small for
	// the notifications without them)
	Item *item `json:"item"`
	// item/agentMessage/delta
	Delta string `json:"delta"`
	// thread/tokenUsage/updated
	TokenUsage *tokenUsage `json:"tokenUsage"`
	// error
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
	WillRetry bool `json:"willRetry"`
	// turn/plan/updated: the agent's whole plan (its update_plan call)
	Plan []planStep `json:"plan"`
	approvalParams
}

// planStep is one step of a turn/plan/updated plan.
type planStep struct {
	Step   string `json:"step"`
	Status string `json:"status"` // pending, inProgress, completed
}

// item is the union of the thread items Atomic reads.
type item struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// agentMessage
	Text string `json:"text"`
	// commandExecution
	Command          string  `json:"command"`
	AggregatedOutput *string `json:"aggregatedOutput"`
	ExitCode         *int    `json:"exitCode"`
	Status           string  `json:"status"`
	// fileChange
	Changes []struct {
		Path string `json:"path"`
	} `json:"changes"`
	// mcpToolCall
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	Error     json.RawMessage `json:"error"`
	// collabAgentToolCall (multi_agent v1)
	SenderThreadID    string                `json:"senderThreadId"`
	ReceiverThreadIDs []string              `json:"receiverThreadIds"`
	Prompt            *string               `json:"prompt"`
	Model             *string               `json:"model"`
	AgentsStates      map[string]agentState `json:"agentsStates"`
	// subAgentActivity (multi_agent v2)
	Kind          string `json:"kind"`
	AgentThreadID string `json:"agentThreadId"`
	AgentPath     string `json:"agentPath"`
}

// agentState is one entry of a collabAgentToolCall's agentsStates.
type agentState struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

// tokenUsage is thread/tokenUsage/updated's report.
type tokenUsage struct {
	// Total is the thread's usage so far, Last its last model request's.
	Total              tokenCounts `json:"total"`
	Last               tokenCounts `json:"last"`
	ModelContextWindow int64       `json:"modelContextWindow"`
}

// tokenCounts is one breakdown of thread/tokenUsage/updated.
type tokenCounts struct {
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	CacheWriteInputTokens int64 `json:"cacheWriteInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
}

// approvalParams: the server→client approval requests (v2 names threadId,
// read from params, and itemId; the legacy ones conversationId and callId).
type approvalParams struct {
	ConversationID string                     `json:"conversationId"`
	ItemID         string                     `json:"itemId"`
	CallID         string                     `json:"callId"`
	Command        json.RawMessage            `json:"command"` // a string (v2) or argv (legacy)
	Reason         *string                    `json:"reason"`
	GrantRoot      *string                    `json:"grantRoot"`
	Permissions    json.RawMessage            `json:"permissions"`
	FileChanges    map[string]json.RawMessage `json:"fileChanges"`
}

// unread reports a line that opens with the method of a notification
// Atomic never reads (about a fifth of a session's bytes: rate limits,
// thread status, output deltas), so it is dropped without decoding. Only
// notifications are named: a request must always be answered.
func unread(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte(`{"method":"`))
	if !ok {
		return false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return false
	}
	switch string(rest[:end]) {
	case "account/rateLimits/updated", "thread/status/changed", "thread/started", "thread/readState/changed",
		"warning", "remoteControl/status/changed", "serverRequest/resolved",
		"item/commandExecution/outputDelta", "item/fileChange/outputDelta",
		"item/reasoning/textDelta", "item/reasoning/summaryTextDelta", "item/reasoning/summaryPartAdded",
		"turn/diff/updated":
		return true
	}
	return false
}
