package e2e

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/loopback"
)

func TestACPAdvertisesImagePromptsOnlyForANativeLeadOverAProviderThatTakesThem(t *testing.T) {
	srv := server(t, `rules: [{respond: {text: "unused"}}]`)
	tests := []struct {
		name string
		args []string
		want bool
	}{
		{"native over anthropic", nil, true},
		{"native over openai", []string{"--provider", "openai"}, true},
		{"the demo model", []string{"--demo"}, false},
		{"a claude-code lead", []string{"--backend", "claude-code"}, false},
		{"a codex lead", []string{"--backend", "codex"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			a := startACP(t, srv, t.TempDir(), &acpClient{}, tt.args...)
			init, err := a.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
			if err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if got := init.AgentCapabilities.PromptCapabilities.Image; got != tt.want {
				t.Errorf("promptCapabilities.image = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestACPPromptsPNGReachesTheModelAndALoadedSessionReplaysItAsAnImageChunk(t *testing.T) {
	srv := server(t, `rules: [{name: saw, respond: {text: "a red dot"}}]`)
	home, dir := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first := startACP(t, srv, home, &acpClient{})
	_, s := first.session(t, ctx, dir, sdk.ClientCapabilities{})
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
	resp, err := first.conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is in this picture?"), sdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: stop %q, %v", resp.StopReason, err)
	}
	saw := loopback.ByRule(srv.Log(), "saw")
	if len(saw) != 1 {
		t.Fatalf("%d model requests, want 1", len(saw))
	}
	m := saw[0].Messages[0]
	if m.Role != "user" || m.Text != "what is in this picture?" {
		t.Errorf("first message %q %q; want the prompt's text", m.Role, m.Text)
	}
	if diff := cmp.Diff([]loopback.LogImage{{MediaType: "image/png", Data: png}}, m.Images); diff != "" {
		t.Errorf("images the model got (-want +got):\n%s", diff)
	}
	first.stop(t)

	client := &acpClient{}
	second := startACP(t, srv, home, client)
	if _, err := second.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := second.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	var (
		user   strings.Builder
		images []loopback.LogImage
	)
	for _, u := range client.seen() {
		c := u.n.Update.UserMessageChunk
		switch {
		case c == nil:
		case c.Content.Text != nil:
			user.WriteString(c.Content.Text.Text)
		case c.Content.Image != nil:
			data, err := base64.StdEncoding.DecodeString(c.Content.Image.Data)
			if err != nil {
				t.Fatalf("replayed image data: %v", err)
			}
			images = append(images, loopback.LogImage{MediaType: c.Content.Image.MimeType, Data: data})
		}
	}
	if got := user.String(); got != "what is in this picture?" {
		t.Errorf("replayed user text %q; want the prompt's text", got)
	}
	if diff := cmp.Diff([]loopback.LogImage{{MediaType: "image/png", Data: png}}, images); diff != "" {
		t.Errorf("replayed user images (-want +got):\n%s", diff)
	}
}
