package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
)

// The warm-up decodes its stream through the SDK as read does an answer:
// every line must decode and accumulate, else the warm-up stops early and
// the first answer builds the decoders again (an SDK whose event shapes
// changed fails here).
func TestTheWarmUpStreamDecodesAndAccumulatesAsAnAnswerWithEveryBlockKind(t *testing.T) {
	var msg sdk.Message
	lines := strings.Split(warmEvents, "\n")
	types := map[string]bool{}
	for i, raw := range lines {
		var ev sdk.MessageStreamEventUnion
		if err := json.Unmarshal([]byte(raw), &ev); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if err := msg.Accumulate(ev); err != nil {
			t.Fatalf("line %d: accumulating: %v", i+1, err)
		}
		types[ev.Type] = true
	}
	for _, want := range []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"} {
		if !types[want] {
			t.Errorf("no %s event", want)
		}
	}
	if len(msg.Content) != 3 || msg.Content[0].Type != "thinking" || msg.Content[1].Text != "hi" ||
		msg.Content[2].Type != "tool_use" || string(toolInput(msg.Content[2].Input)) != `{"path":"a"}` || msg.StopReason != "tool_use" {
		t.Fatalf("accumulated %+v; want a thinking, a text and a tool_use block, stopped for the tool", msg)
	}
}
