package chat

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
)

// The warm-up decodes its stream through the SDK as attempt does an
// answer: every line must decode and accumulate, else the warm-up stops
// early and the first answer builds the decoders again (an SDK whose
// chunk shapes changed fails here).
func TestTheWarmUpStreamDecodesAndAccumulatesAsAnAnswerWithTextAndAToolCall(t *testing.T) {
	var acc sdk.ChatCompletionAccumulator
	for i, raw := range strings.Split(warmChunks, "\n") {
		var c sdk.ChatCompletionChunk
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if !acc.AddChunk(c) {
			t.Fatalf("line %d: the accumulator refused the chunk", i+1)
		}
	}
	if len(acc.Choices) != 1 {
		t.Fatalf("accumulated %d choices; want 1", len(acc.Choices))
	}
	m := acc.Choices[0]
	if m.Message.Content != "hi" || len(m.Message.ToolCalls) != 1 || m.Message.ToolCalls[0].Function.Arguments != `{"path":"a"}` ||
		m.FinishReason != "tool_calls" || acc.Usage.TotalTokens != 2 {
		t.Fatalf("accumulated %+v, usage %+v; want the text, one read call, finish tool_calls, 2 tokens", m, acc.Usage)
	}
}
