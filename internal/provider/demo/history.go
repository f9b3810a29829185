package demo

import (
	"encoding/json"
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// Messages the runtime delivers into a session's history as user text.
const (
	taskNote = "<task-notification>"
	teamNote = "<team-notification>"
	teamMsg  = "<team-message"
)

// isDelivered reports whether a user text part was delivered by the runtime
// (a background result, a team message or notice) rather than typed.
func isDelivered(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, taskNote) || strings.HasPrefix(s, teamNote) || strings.HasPrefix(s, teamMsg)
}

// lastPrompt finds the newest typed user prompt: its message index and text
// (-1 and "" when there is none).
func lastPrompt(msgs []provider.Message) (int, string) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != provider.RoleUser {
			continue
		}
		for _, pt := range msgs[i].Parts {
			if pt.ToolResult == nil && strings.TrimSpace(pt.Text) != "" && !isDelivered(pt.Text) {
				return i, pt.Text
			}
		}
	}
	return -1, ""
}

// lastPromptOf finds the newest typed prompt that chose script s.
func lastPromptOf(msgs []provider.Message, s script) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != provider.RoleUser {
			continue
		}
		for _, pt := range msgs[i].Parts {
			if pt.ToolResult == nil && !isDelivered(pt.Text) && strings.TrimSpace(pt.Text) != "" && classify(pt.Text) == s {
				return i
			}
		}
	}
	return -1
}

// delivered returns the delivered texts of a message.
func delivered(m provider.Message) []string {
	var out []string
	for _, pt := range m.Parts {
		if pt.ToolResult == nil && isDelivered(pt.Text) {
			out = append(out, strings.TrimSpace(pt.Text))
		}
	}
	return out
}

// onlyDelivered reports whether m holds delivered texts and nothing else:
// a wake-up.
func onlyDelivered(m provider.Message) bool {
	if m.Role != provider.RoleUser || len(m.Parts) == 0 {
		return false
	}
	for _, pt := range m.Parts {
		if pt.ToolResult != nil || !isDelivered(pt.Text) {
			return false
		}
	}
	return true
}

// lastAssistant is the newest assistant message of msgs (nil if none).
func lastAssistant(msgs []provider.Message) *provider.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == provider.RoleAssistant {
			return &msgs[i]
		}
	}
	return nil
}

// callsOf returns m's tool calls named name (all of them when name is "").
func callsOf(m *provider.Message, name string) []provider.ToolCall {
	if m == nil {
		return nil
	}
	var out []provider.ToolCall
	for _, pt := range m.Parts {
		if pt.ToolCall != nil && (name == "" || pt.ToolCall.Name == name) {
			out = append(out, *pt.ToolCall)
		}
	}
	return out
}

// allCalls returns every tool call named name in msgs.
func allCalls(msgs []provider.Message, name string) []provider.ToolCall {
	var out []provider.ToolCall
	for i := range msgs {
		out = append(out, callsOf(&msgs[i], name)...)
	}
	return out
}

// resultOf returns the result of the call with id, if it came back.
func resultOf(msgs []provider.Message, id string) (provider.ToolResult, bool) {
	for _, m := range msgs {
		for _, pt := range m.Parts {
			if pt.ToolResult != nil && pt.ToolResult.ToolCallID == id {
				return *pt.ToolResult, true
			}
		}
	}
	return provider.ToolResult{}, false
}

// toolRounds counts assistant messages that made tool calls.
func toolRounds(msgs []provider.Message) int {
	n := 0
	for i := range msgs {
		if msgs[i].Role == provider.RoleAssistant && len(callsOf(&msgs[i], "")) > 0 {
			n++
		}
	}
	return n
}

// resultTexts returns the contents of every successful tool result.
func resultTexts(msgs []provider.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, pt := range m.Parts {
			if pt.ToolResult != nil && !pt.ToolResult.IsError {
				out = append(out, pt.ToolResult.Content)
			}
		}
	}
	return out
}

// input decodes a tool call's input into v, ignoring what does not fit.
// taskInput reads a task call as the task tool does.
func taskInput(c provider.ToolCall) event.TaskInput {
	in, _ := event.ParseTaskInput(c.Input)
	return in
}

func input[T any](c provider.ToolCall) T {
	var v T
	_ = json.Unmarshal(c.Input, &v)
	return v
}
