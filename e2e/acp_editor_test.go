package e2e

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// greetCommand is a project command file with a gated !`command`.
const greetCommand = "---\ndescription: Greet someone with a fact\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS. Fact: !`echo COMMAND-RAN`\n"

func TestACPOffersTheProjectsSlashCommandsAndExpandsOneAskingBeforeItsCommandRuns(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, `rules: [{name: greeted, match: {last_user_contains: "Say hello to Ada"}, respond: {text: "hello Ada"}}, {name: other, respond: {text: "not expanded"}}]`)
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, ".claude", "commands"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ".claude", "commands", "greet.md"), []byte(greetCommand), 0o644); err != nil {
				t.Fatal(err)
			}
			r := d.run(t, srv, t.TempDir(), acpFlow{Cwd: dir, Prompt: "/greet Ada"})
			if r.err != "" || r.stop != sdk.StopReasonEndTurn || agentText(r.updates) != "hello Ada" {
				t.Fatalf("/greet Ada: stop %q, error %q, text %q; want the expanded prompt answered", r.stop, r.err, agentText(r.updates))
			}
			var offered []sdk.AvailableCommand
			for _, u := range r.updates {
				if a := u.n.Update.AvailableCommandsUpdate; a != nil {
					offered = a.AvailableCommands
				}
			}
			i := slices.IndexFunc(offered, func(c sdk.AvailableCommand) bool { return c.Name == "greet" })
			if i < 0 || offered[i].Description != "Greet someone with a fact" || offered[i].Input == nil || offered[i].Input.Unstructured.Hint != "NAME" {
				t.Fatalf("available commands %+v; want greet with its description and hint", offered)
			}
			got := loopback.ByRule(srv.Log(), "greeted")
			if len(got) != 1 {
				t.Fatalf("%d expanded requests", len(got))
			}
			if last := got[0].Messages[len(got[0].Messages)-1].Text; !strings.Contains(last, "Fact: COMMAND-RAN") {
				t.Errorf("the prompt %q should hold the !`command`'s output", last)
			}
			if len(r.asked) != 1 || !strings.Contains(*r.asked[0].ToolCall.Title, "echo COMMAND-RAN") {
				t.Errorf("approvals %+v; want the !`command` asked of the client once", r.asked)
			}
		})
	}
}

func TestACPAFailedMCPServerIsToldToTheClientAndAnMCPImageArrivesAsImageContent(t *testing.T) {
	everything := testkit.MCPEverything(t)
	srv := server(t, `
rules:
  - {name: final, match: {has_tool_results: true}, respond: {text: "looked"}}
  - {name: call, match: {tools_include: [mcp__everything__get-tiny-image]}, respond: {tool_calls: [{name: mcp__everything__get-tiny-image, input: {}}]}}
  - {name: no-tool, respond: {text: "no image tool"}}
`)
	client := &acpClient{answer: allowLead}
	a := startACP(t, srv, t.TempDir(), client, "--permission-mode", "bypassPermissions")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := a.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	s, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "everything", Command: everything, Args: []string{"stdio"}, Env: []sdk.EnvVariable{}}},
		{Stdio: &sdk.McpServerStdio{Name: "broken", Command: filepath.Join(t.TempDir(), "no-such-server"), Args: []string{}, Env: []sdk.EnvVariable{}}},
	}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if _, err := a.prompt(ctx, s.SessionId, "show me the image"); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	text := agentText(client.seen())
	if !strings.HasPrefix(text, "⚠ Atomic:") || !strings.Contains(text, "broken") || !strings.HasSuffix(text, "looked") {
		t.Errorf("the prompt's answer %q; want the broken server's failure told first, then the lead's answer", text)
	}
	var img *sdk.ContentBlockImage
	var texts []string
	for _, u := range client.seen() {
		tu := u.n.Update.ToolCallUpdate
		if tu == nil {
			continue
		}
		for _, c := range tu.Content {
			if c.Content == nil {
				continue
			}
			if c.Content.Content.Image != nil {
				img = c.Content.Content.Image
			}
			if c.Content.Content.Text != nil {
				texts = append(texts, c.Content.Content.Text.Text)
			}
		}
	}
	if img == nil || img.MimeType != "image/png" {
		t.Fatalf("no image/png content block in the tool call: %+v", img)
	}
	if raw, err := base64.StdEncoding.DecodeString(img.Data); err != nil || !strings.HasPrefix(string(raw), "\x89PNG") {
		t.Errorf("image data does not decode to a PNG: %v", err)
	}
	if all := strings.Join(texts, "\n"); strings.Contains(all, "[image image/png") {
		t.Errorf("the tool call's text %q still names the image instead of showing it", all)
	}
}

// A skill is offered in the editor's / menu and "/NAME args" loads it for
// the lead, as Claude Code runs a skill the user invokes: its body with
// the arguments, and where its files are.
func TestACPOffersTheSkillsAsSlashCommandsAndAnInvokedSkillIsLoadedForTheLead(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, `rules: [{name: loaded, match: {last_user_contains: "Release checklist for v2.1"}, respond: {text: "following the checklist"}}, {name: other, respond: {text: "not loaded"}}]`)
			dir := t.TempDir()
			skill := filepath.Join(dir, ".claude", "skills", "release")
			if err := os.MkdirAll(skill, 0o755); err != nil {
				t.Fatal(err)
			}
			body := "---\nname: release\ndescription: Cut a release of this project\n---\nRelease checklist for $ARGUMENTS: tag, notes, publish.\n"
			for name, text := range map[string]string{"SKILL.md": body, "notes.tmpl": "notes\n"} {
				if err := os.WriteFile(filepath.Join(skill, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := d.run(t, srv, t.TempDir(), acpFlow{Cwd: dir, Prompt: "/release v2.1"})
			if r.err != "" || r.stop != sdk.StopReasonEndTurn || agentText(r.updates) != "following the checklist" {
				t.Fatalf("/release v2.1: stop %q, error %q, text %q; want the skill loaded and answered", r.stop, r.err, agentText(r.updates))
			}
			var offered []sdk.AvailableCommand
			for _, u := range r.updates {
				if a := u.n.Update.AvailableCommandsUpdate; a != nil {
					offered = a.AvailableCommands
				}
			}
			if i := slices.IndexFunc(offered, func(c sdk.AvailableCommand) bool { return c.Name == "release" }); i < 0 || offered[i].Description != "Cut a release of this project" {
				t.Fatalf("available commands %+v; want the skill release with its description", offered)
			}
			got := loopback.ByRule(srv.Log(), "loaded")
			if len(got) != 1 {
				t.Fatalf("%d requests held the loaded skill, want 1", len(got))
			}
			last := got[0].Messages[len(got[0].Messages)-1].Text
			for _, want := range []string{"/release", "Base directory for this skill: " + skill, "notes.tmpl", "Release checklist for v2.1: tag"} {
				if !strings.Contains(last, want) {
					t.Errorf("the lead's prompt %q lacks %q", last, want)
				}
			}
		})
	}
}
