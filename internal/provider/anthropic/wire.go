package anthropic

import "encoding/json"

// wireEvent is the part of a streamed Messages API event that read uses,
// decoded by encoding/json. The SDK's own event type is a union of every
// event and block the API has, decoded by reflection that also keeps each
// field's raw JSON and presence: with Accumulate gone, that decoding was
// most of what reading an answer cost (a lead's thousand task calls, and
// a fifth of a sub-agent's allocations). The SDK still makes the request,
// reports its errors and frames the events (ssestream).
type wireEvent struct {
	Type         string       `json:"type"`
	Index        int64        `json:"index"`
	Message      *wireMessage `json:"message"`
	ContentBlock wireBlock    `json:"content_block"`
	Delta        wireDelta    `json:"delta"`
	Usage        wireUsage    `json:"usage"`
}

type wireMessage struct {
	Model      string      `json:"model"`
	Content    []wireBlock `json:"content"`
	StopReason string      `json:"stop_reason"`
	Usage      wireUsage   `json:"usage"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	Input     json.RawMessage `json:"input"`
}

type wireDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	StopReason  string `json:"stop_reason"`
}

// wireUsage's pointers are the counts a message_delta may leave out (or
// send as null), which then keep message_start's word.
type wireUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             int64  `json:"output_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
}

// input is a block's input as sent; none for an absent or null one.
func (b *wireBlock) input() json.RawMessage {
	if len(b.Input) == 0 || string(b.Input) == "null" {
		return nil
	}
	return b.Input
}
