package loopback

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
)

var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01")

// imageScenario answers "saw the image" only when the last turn carries
// an image.
func imageScenario() *Scenario {
	yes, no := true, false
	return &Scenario{Rules: []Rule{
		{Name: "image", Match: Match{ToolResultHasImage: &yes}, Respond: &Response{Text: "saw the image"}},
		{Name: "no-image", Match: Match{ToolResultHasImage: &no}, Respond: &Response{Text: "no image"}},
	}}
}

func anthropicImageTurn(results ...anthropic.ContentBlockParamUnion) []anthropic.MessageParam {
	asst := anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_1", map[string]any{}, "screenshot"))
	return []anthropic.MessageParam{anthropicUser("take a screenshot"), asst, anthropic.NewUserMessage(results...)}
}

func TestAnthropicToolResultImagesAreLoggedAndMatched(t *testing.T) {
	s := startServer(t, imageScenario())
	c := anthropicClient(s, testKey)
	withImage := anthropic.ToolResultBlockParam{ToolUseID: "toolu_1", Content: []anthropic.ToolResultBlockParamContentUnion{
		{OfText: &anthropic.TextBlockParam{Text: "a screenshot"}},
		{OfImage: &anthropic.ImageBlockParam{Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
			Data: base64.StdEncoding.EncodeToString(tinyPNG), MediaType: anthropic.Base64ImageSourceMediaTypeImagePNG}}}},
	}}
	msg, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicImageTurn(anthropic.ContentBlockParamUnion{OfToolResult: &withImage})...))
	if err != nil {
		t.Fatal(err)
	}
	if msg.Content[0].Text != "saw the image" {
		t.Fatalf("answer %q, want the image rule's", msg.Content[0].Text)
	}
	want := []LogToolResult{{ToolCallID: "toolu_1", Content: "a screenshot", Images: []LogImage{{MediaType: "image/png", Data: tinyPNG}}}}
	if diff := cmp.Diff(want, s.Log()[0].LastToolResults()); diff != "" {
		t.Errorf("logged tool results (-want +got):\n%s", diff)
	}

	msg, err = c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicImageTurn(anthropic.NewToolResultBlock("toolu_1", "text only", false))...))
	if err != nil {
		t.Fatal(err)
	}
	if msg.Content[0].Text != "no image" {
		t.Fatalf("answer %q, want the no-image rule's", msg.Content[0].Text)
	}
}

func TestAnthropicRejectsAnImageItCannotRead(t *testing.T) {
	s := startServer(t, imageScenario())
	c := anthropicClient(s, testKey)
	for _, tc := range []struct{ name, mediaType, data, want string }{
		{"unsupported type", "image/bmp", base64.StdEncoding.EncodeToString(tinyPNG), "image/bmp"},
		{"bad base64", "image/png", "not base64!", "base64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := anthropic.ToolResultBlockParam{ToolUseID: "toolu_1", Content: []anthropic.ToolResultBlockParamContentUnion{
				{OfImage: &anthropic.ImageBlockParam{Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
					Data: tc.data, MediaType: anthropic.Base64ImageSourceMediaType(tc.mediaType)}}}},
			}}
			_, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicImageTurn(anthropic.ContentBlockParamUnion{OfToolResult: &res})...))
			var apiErr *anthropic.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Error(), tc.want) {
				t.Fatalf("err = %v, want a 400 naming %q", err, tc.want)
			}
		})
	}
}

func openAIImageTurn(after ...openai.ChatCompletionMessageParamUnion) []openai.ChatCompletionMessageParamUnion {
	asst := openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ChatCompletionMessageToolCallUnion{
		{ID: "call_1", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "screenshot", Arguments: "{}"}},
	}}
	return append([]openai.ChatCompletionMessageParamUnion{openai.UserMessage("take a screenshot"), asst.ToParam(), openai.ToolMessage("a screenshot", "call_1")}, after...)
}

func TestOpenAIImagesAfterToolMessagesAreLoggedAndMatched(t *testing.T) {
	s := startServer(t, imageScenario())
	images := openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
		openai.TextContentPart("Images from tool call call_1:"),
		openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(tinyPNG)}),
	})
	resp, err := newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openAIImageTurn(images)...))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content != "saw the image" {
		t.Fatalf("answer %q, want the image rule's", resp.Choices[0].Message.Content)
	}
	msgs := s.Log()[0].Messages
	want := LogMessage{Role: "user", Text: "Images from tool call call_1:", Images: []LogImage{{MediaType: "image/png", Data: tinyPNG}}}
	if diff := cmp.Diff(want, msgs[len(msgs)-1]); diff != "" {
		t.Errorf("logged image message (-want +got):\n%s", diff)
	}

	resp, err = newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openAIImageTurn()...))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content != "no image" {
		t.Fatalf("answer %q, want the no-image rule's", resp.Choices[0].Message.Content)
	}
}

func TestOpenAIRejectsBadImageParts(t *testing.T) {
	s := startServer(t, imageScenario())
	for _, tc := range []struct{ name, url, want string }{
		{"not a data URL", "data:image/png,raw", "base64"},
		{"bad base64", "data:image/png;base64,@@@", "base64"},
		{"unsupported type", "data:image/bmp;base64," + base64.StdEncoding.EncodeToString(tinyPNG), "image/bmp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: tc.url}),
			})
			_, err := newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openAIImageTurn(img)...))
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, tc.want) {
				t.Fatalf("err = %v, want a 400 naming %q", err, tc.want)
			}
		})
	}
}
