package anthropic

import (
	sdk "github.com/anthropics/anthropic-sdk-go"
)

// Prompt caching. A request carries up to four cache_control breakpoints,
// the API's limit, placed as Claude Code places them:
//
//   - the last tool: the tool definitions, shared by every agent with the
//     same tools (siblings of a fan-out whose system prompts differ);
//   - the system prompt: tools and system, shared by every sibling of one
//     type;
//   - the end of the previous request: the last block of the message
//     before the last assistant message, which is where the previous
//     request put its moving breakpoint, so this request reads the prefix
//     that one wrote at exactly that place however many blocks the
//     answer and its tool results added since;
//   - the conversation's moving end: the last message's last block, so the
//     next request reads this one's prefix.
//
// The prefix before each breakpoint must be byte-stable across turns for
// this to pay: tools come in the set's order, encoded once (toolCache);
// system prompts hold no time or id that changes.

// ephemeral is the 5-minute cache, the default TTL (1.25x input to write).
var ephemeral = sdk.NewCacheControlEphemeralParam()

// markCache sets params' breakpoints on its system prompt and messages;
// the last tool's breakpoint is set where tools are translated.
func markCache(params *sdk.MessageNewParams) {
	if n := len(params.System); n > 0 {
		params.System[n-1].CacheControl = ephemeral
	}
	msgs := params.Messages
	if len(msgs) == 0 {
		return
	}
	markLastBlock(msgs[len(msgs)-1])
	for i := len(msgs) - 1; i > 0; i-- {
		if msgs[i].Role == sdk.MessageParamRoleAssistant {
			markLastBlock(msgs[i-1])
			break
		}
	}
}

// markLastBlock sets a breakpoint on m's last block that can carry one
// (thinking blocks cannot).
func markLastBlock(m sdk.MessageParam) {
	for j := len(m.Content) - 1; j >= 0; j-- {
		if cc := m.Content[j].GetCacheControl(); cc != nil {
			*cc = ephemeral
			return
		}
	}
}
