package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
)

func TestInitializeAdvertisesImagesOnlyWhenTheLeadTakesThem(t *testing.T) {
	for _, images := range []bool{true, false} {
		t.Run(fmt.Sprint("images=", images), func(t *testing.T) {
			conn, _ := serveClient(t, `rules: [{respond: {text: "hi"}}]`, &client{images: images})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
			if err != nil {
				t.Fatal(err)
			}
			if got := init.AgentCapabilities.PromptCapabilities.Image; got != images {
				t.Errorf("promptCapabilities.image = %v, want %v", got, images)
			}
		})
	}
}

func TestAPromptsImageReachesTheModelAfterItsText(t *testing.T) {
	conn, c := serveClient(t, `rules: [{respond: {text: "a red dot"}}]`, &client{images: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is this?"), sdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %v, %v", resp.StopReason, err)
	}
	if got := c.text(); got != "a red dot" {
		t.Errorf("agent text %q", got)
	}
	log := c.srv.Log()
	if len(log) != 1 {
		t.Fatalf("%d model requests, want 1", len(log))
	}
	m := log[0].Messages[0]
	if m.Text != "what is this?" {
		t.Errorf("user text %q", m.Text)
	}
	if diff := cmp.Diff([]loopback.LogImage{{MediaType: "image/png", Data: png}}, m.Images); diff != "" {
		t.Errorf("images the model got (-want +got):\n%s", diff)
	}
}

func TestABadImageGetsAnInvalidParamsErrorNamingWhatIsWrong(t *testing.T) {
	conn, c := serveClient(t, `rules: [{respond: {text: "unused"}}]`, &client{images: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	tests := []struct {
		name  string
		block sdk.ContentBlock
		want  string
	}{
		{"an unsupported type", sdk.ImageBlock("aGk=", "image/bmp"), `prompt[1]: image mimeType "image/bmp" is not supported (use image/png, image/jpeg, image/gif or image/webp)`},
		{"data that is not base64", sdk.ImageBlock("not base64!", "image/png"), "prompt[1]: image data is not valid base64"},
		{"no data", sdk.ImageBlock("", "image/jpeg"), "prompt[1]: image has no data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("look"), tt.block}})
			var re *sdk.RequestError
			if !errors.As(err, &re) || re.Code != -32602 {
				t.Fatalf("got %v, want a JSON-RPC invalid params error", err)
			}
			if data := fmt.Sprint(re.Data); !strings.Contains(data, tt.want) {
				t.Errorf("error data %q does not say %q", data, tt.want)
			}
		})
	}
	if n := len(c.srv.Log()); n != 0 {
		t.Errorf("the model got %d requests; a refused prompt must not reach it", n)
	}
}

func TestRestoreImagesGivesNotedPromptsTheirImagesFromTheHistory(t *testing.T) {
	a := provider.Image{MediaType: "image/png", Data: []byte("a")}
	b := provider.Image{MediaType: "image/jpeg", Data: []byte("b")}
	c := provider.Image{MediaType: "image/gif", Data: []byte("c")}
	user := func(parts ...provider.Part) provider.Message {
		return provider.Message{Role: provider.RoleUser, Parts: parts}
	}
	history := []provider.Message{
		user(provider.Part{Text: "one"}, provider.Part{Image: &a}),
		{Role: provider.RoleAssistant, Parts: []provider.Part{{Text: "ok"}}},
		user(provider.Part{Text: "plain"}),
		user(provider.Part{Text: "two"}, provider.Part{Image: &b}, provider.Part{Image: &c}),
	}
	tests := []struct {
		name    string
		prompts []Prompt
		history []provider.Message
		want    []Prompt
	}{
		{"each noted prompt takes its message's images",
			[]Prompt{{Text: "one [1 image]"}, {Text: "plain"}, {Text: "two [2 images]"}}, history,
			[]Prompt{{Text: "one", Images: []provider.Image{a}}, {Text: "plain"}, {Text: "two", Images: []provider.Image{b, c}}}},
		{"prompts from before a /clear keep their notes",
			[]Prompt{{Text: "old [1 image]"}, {Text: "two [2 images]"}}, history[3:],
			[]Prompt{{Text: "old [1 image]"}, {Text: "two", Images: []provider.Image{b, c}}}},
		{"a count that does not match keeps the note",
			[]Prompt{{Text: "two [3 images]"}}, history,
			[]Prompt{{Text: "two [3 images]"}}},
		{"no history keeps every note",
			[]Prompt{{Text: "one [1 image]"}}, nil,
			[]Prompt{{Text: "one [1 image]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, RestoreImages(tt.prompts, tt.history)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
