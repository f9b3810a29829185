package loopback

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// thinkingScenario answers a first turn with thinking and a tool call, and
// the turn that brings its result with text.
func thinkingScenario() *Scenario {
	return &Scenario{Rules: []Rule{
		{Name: "done", Match: Match{HasToolResults: ptr(true)}, Respond: &Response{Text: "Done.", Thinking: "The listing is in."}},
		{Name: "plan", Respond: &Response{Thinking: "I should list the files first.", ToolCalls: []ToolCall{{Name: "bash", Input: map[string]any{"command": "ls"}}}}},
	}}
}

func thinkingParams(msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	p := anthropicParams("claude-x", msgs...)
	p.MaxTokens = 4096
	p.Thinking = anthropic.ThinkingConfigParamOfEnabled(2048)
	p.Tools = []anthropic.ToolUnionParam{anthropicTool("bash")}
	return p
}

// toolTurn is the tool loop's second request: the assistant turn as
// given, and the result of its tool call.
func toolTurn(assistant anthropic.MessageParam, callID string) anthropic.MessageNewParams {
	return thinkingParams(anthropicUser("list the files"), assistant,
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(callID, "go.mod", false)))
}

func TestAnthropicThinkingStreamsASignedBlockFirstThatTheToolLoopSendsBack(t *testing.T) {
	s := startServer(t, thinkingScenario())
	c := anthropicClient(s, testKey)
	stream := c.Messages.NewStreaming(context.Background(), thinkingParams(anthropicUser("list the files")))
	var msg anthropic.Message
	var deltas []string
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "content_block_delta" {
			deltas = append(deltas, ev.Delta.Type)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 2 || msg.Content[0].Type != "thinking" || msg.Content[1].Type != "tool_use" {
		t.Fatalf("content = %+v, want thinking then tool_use", msg.Content)
	}
	if msg.Content[0].Thinking != "I should list the files first." || msg.Content[0].Signature == "" {
		t.Errorf("thinking block = %+v", msg.Content[0])
	}
	if i := slices.Index(deltas, "signature_delta"); i < 1 || deltas[0] != "thinking_delta" || deltas[i+1] != "input_json_delta" {
		t.Errorf("delta order = %v, want thinking deltas, a signature, then the tool input", deltas)
	}
	if min := int64(EstimateTokens(len(msg.Content[0].Thinking))); msg.Usage.OutputTokens <= min {
		t.Errorf("output tokens %d do not count the thinking (%d)", msg.Usage.OutputTokens, min)
	}

	// The SDK's round trip keeps the block and its signature unchanged.
	final, err := c.Messages.New(context.Background(), toolTurn(msg.ToParam(), msg.Content[1].ID))
	if err != nil {
		t.Fatal(err)
	}
	if final.Content[0].Type != "thinking" || final.Content[1].Text != "Done." || final.Content[0].Signature == msg.Content[0].Signature {
		t.Errorf("final content = %+v", final.Content)
	}
	e := waitForLog(t, s, 2)
	if e[0].ThinkingBudget != 2048 || e[1].ThinkingReturned != 1 || e[1].Rule != "done" {
		t.Errorf("log = budget %d, returned %d, rule %q", e[0].ThinkingBudget, e[1].ThinkingReturned, e[1].Rule)
	}
}

func TestAnthropicToolLoopWithChangedOrMissingThinkingIsRefused(t *testing.T) {
	s := startServer(t, thinkingScenario())
	c := newAnthropic(s)
	msg, err := c.Messages.New(context.Background(), thinkingParams(anthropicUser("list the files")))
	if err != nil {
		t.Fatal(err)
	}
	callID := msg.Content[1].ID
	changed := msg.ToParam()
	changed.Content[0].OfThinking.Thinking += " (edited)"
	dropped := msg.ToParam()
	dropped.Content = dropped.Content[1:]
	textFirst := msg.ToParam()
	textFirst.Content = append([]anthropic.ContentBlockParamUnion{anthropic.NewTextBlock("Listing.")}, textFirst.Content...)
	forged := msg.ToParam()
	forged.Content = append([]anthropic.ContentBlockParamUnion{anthropic.NewRedactedThinkingBlock("forged")}, forged.Content[1:]...)
	for name, tc := range map[string]struct {
		assistant anthropic.MessageParam
		want      string
	}{
		"changed":         {changed, "messages.1.content.0: Invalid `signature` in `thinking` block"},
		"dropped":         {dropped, "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block"},
		"forged redacted": {forged, "messages.1.content.0: Invalid `data` in `redacted_thinking` block"},
		"text first":      {textFirst, "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found text."},
	} {
		_, err := c.Messages.New(context.Background(), toolTurn(tc.assistant, callID))
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Type() != "invalid_request_error" || !strings.Contains(apiErr.RawJSON(), tc.want) {
			t.Errorf("%s: err = %v, want 400 %q", name, err, tc.want)
		}
	}
}

func TestAnthropicThinkingBudgetFollowsTheAPIRules(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "ok"}}}})
	for _, tc := range []struct {
		budget, maxTokens int64
		want              string
	}{
		{512, 4096, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"},
		{4096, 4096, "`max_tokens` must be greater than `thinking.budget_tokens`"},
	} {
		p := anthropicParams("claude-x", anthropicUser("hi"))
		p.MaxTokens = tc.maxTokens
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(tc.budget)
		_, err := newAnthropic(s).Messages.New(context.Background(), p)
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.RawJSON(), tc.want) {
			t.Errorf("budget %d max %d: err = %v, want %q", tc.budget, tc.maxTokens, err, tc.want)
		}
	}
}

func TestAnthropicThinkingIsSentOnlyWhenTheRequestEnablesIt(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "ok", Thinking: "scripted"}}}})
	c := newAnthropic(s)
	plain, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi")))
	if err != nil {
		t.Fatal(err)
	}
	p := anthropicParams("claude-x", anthropicUser("hi"))
	p.MaxTokens = 2048
	p.Thinking = anthropic.ThinkingConfigParamOfEnabled(1024)
	thought, err := c.Messages.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Content) != 1 || plain.Content[0].Type != "text" {
		t.Errorf("without thinking: %+v", plain.Content)
	}
	if len(thought.Content) != 2 || thought.Content[0].Thinking != "scripted" || thought.Content[0].Signature == "" {
		t.Errorf("with thinking: %+v", thought.Content)
	}
	// A later plain turn may carry the signed block back.
	next, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi"), thought.ToParam(), anthropicUser("again")))
	if err != nil || len(next.Content) != 1 {
		t.Errorf("next turn: %v %+v", err, next)
	}
}

func TestOpenAIChatReasoningEffortIsLoggedAndReportedAsReasoningTokens(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "ok", Thinking: "weighing the options"}}}})
	c := newOpenAI(s)
	p := openAIParams("gpt-x", openai.UserMessage("hi"))
	p.ReasoningEffort = shared.ReasoningEffortHigh
	resp, err := c.Chat.Completions.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := c.Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hi")))
	if err != nil {
		t.Fatal(err)
	}
	want := int64(EstimateTokens(len("weighing the options")))
	if got := resp.Usage.CompletionTokensDetails.ReasoningTokens; got != want || resp.Usage.CompletionTokens <= got {
		t.Errorf("reasoning tokens %d of %d, want %d", got, resp.Usage.CompletionTokens, want)
	}
	if plain.Usage.CompletionTokensDetails.ReasoningTokens != 0 || resp.Choices[0].Message.Content != "ok" {
		t.Errorf("plain usage %+v, content %q", plain.Usage, resp.Choices[0].Message.Content)
	}
	if e := s.Log(); e[0].ReasoningEffort != "high" || e[1].ReasoningEffort != "" {
		t.Errorf("logged efforts %q, %q", e[0].ReasoningEffort, e[1].ReasoningEffort)
	}
}

func TestResponsesReasoningItemWithEncryptedContentMustComeBackUnchanged(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{
		{Name: "done", Match: Match{HasToolResults: ptr(true)}, Respond: &Response{Text: "Done."}},
		{Name: "plan", Respond: &Response{Thinking: "List first.", ToolCalls: []ToolCall{{Name: "bash", Input: map[string]any{"command": "ls"}}}}},
	}})
	c := newResponses(s)
	p := responsesParams("gpt-x", "list the files")
	p.Tools = []responses.ToolUnionParam{functionTool("bash")}
	p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffortLow, Summary: shared.ReasoningSummaryAuto}
	p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	p.Store = openai.Bool(false)
	run := responsesStream(context.Background(), c, p)
	if run.err != nil {
		t.Fatal(run.err)
	}
	out := run.final.Output
	if len(out) != 2 || out[0].Type != "reasoning" || out[0].EncryptedContent == "" || len(out[0].Summary) != 1 || out[0].Summary[0].Text != "List first." {
		t.Fatalf("output = %s", run.final.RawJSON())
	}
	if !slices.Contains(run.types, "response.reasoning_summary_text.delta") || run.final.Usage.OutputTokensDetails.ReasoningTokens == 0 {
		t.Errorf("events %v, usage %+v", run.types, run.final.Usage)
	}
	if run.final.Reasoning.Effort != shared.ReasoningEffortLow {
		t.Errorf("echoed reasoning = %+v", run.final.Reasoning)
	}
	reasoning, call := out[0].AsReasoning().ToParam(), out[1].AsFunctionCall()
	next := func(r responses.ResponseReasoningItemParam) error {
		q := p
		q.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfMessage("list the files", responses.EasyInputMessageRoleUser),
			{OfReasoning: &r},
			responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name),
			functionCallOutput(call.CallID, "go.mod"),
		}}
		_, err := c.New(context.Background(), q)
		return err
	}
	if err := next(reasoning); err != nil {
		t.Fatalf("unchanged reasoning item: %v", err)
	}
	// ToParam sends the item's JSON as it came; a changed copy is built.
	tampered := responses.ResponseReasoningItemParam{
		ID:               out[0].ID,
		Summary:          []responses.ResponseReasoningItemSummaryParam{{Text: out[0].Summary[0].Text}},
		EncryptedContent: openai.String(out[0].EncryptedContent + "x"),
	}
	err := next(tampered)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != "invalid_encrypted_content" ||
		!strings.Contains(apiErr.Message, "The encrypted content for item "+out[0].ID+" could not be verified.") {
		t.Fatalf("tampered: err = %v", err)
	}
	e := s.Log()
	if e[0].ReasoningEffort != "low" || e[1].ThinkingReturned != 1 || e[1].Rule != "done" {
		t.Errorf("log = effort %q, returned %d, rule %q", e[0].ReasoningEffort, e[1].ThinkingReturned, e[1].Rule)
	}
}
