package acp

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

func TestASessionAdvertisesCompactAsASlashCommand(t *testing.T) {
	conn, c := serve(t, `rules: [{respond: {text: "hi"}}]`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	// A prompt's end means every update queued before it was sent.
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}}); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range c.updates {
		if a := u.AvailableCommandsUpdate; a != nil {
			i := slices.IndexFunc(a.AvailableCommands, func(c sdk.AvailableCommand) bool { return c.Name == "compact" })
			if i < 0 || a.AvailableCommands[i].Input == nil || a.AvailableCommands[i].Input.Unstructured == nil {
				t.Fatalf("available commands %+v, want compact taking input", a.AvailableCommands)
			}
			return
		}
	}
	t.Fatal("no available_commands_update reached the client")
}

func TestACompactPromptSummarisesTheLeadsEarlierTurnsWithTheUsersInstructions(t *testing.T) {
	conn, c := serve(t, `
rules:
  - {name: summary, match: {last_user_contains: "Write a summary of the conversation so far"}, respond: {text: "the user greeted twice"}}
  - respond: {text: "hello"}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	for _, p := range []string{"hi", "hi again"} {
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(p)}}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/compact keep the greetings")}})
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/compact: %v, %v; want end_turn", r.StopReason, err)
	}
	if txt := c.text(); !strings.Contains(txt, "Context compacted:") || !strings.Contains(txt, "messages summarised") {
		t.Errorf("the client read %q; want the compaction's figures", txt)
	}
	log := c.srv.Log()
	last := log[len(log)-1]
	if len(log) != 3 || last.Rule != "summary" || len(last.Tools) != 0 {
		t.Fatalf("requests %d, the last answered by %q with tools %v; want the third a summary request without tools", len(log), last.Rule, last.Tools)
	}
	if m := last.Messages[len(last.Messages)-1]; !strings.Contains(m.Text, "Instructions for this summary: keep the greetings") {
		t.Errorf("the summary request ends with %q; want the user's instructions", m.Text)
	}
	// The next turn goes on from the summary.
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("and now?")}}); err != nil {
		t.Fatal(err)
	}
	if next := c.srv.Log()[3]; !strings.Contains(next.Messages[0].Text, "the user greeted twice") {
		t.Errorf("the turn after /compact opens with %q; want the summary", next.Messages[0].Text)
	}
}

func TestACompactPromptWithNothingToSummariseSaysWhy(t *testing.T) {
	conn, c := serve(t, `rules: [{respond: {text: "hello"}}]`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/compact")}}); err != nil {
		t.Fatal(err)
	}
	if txt := c.text(); !strings.Contains(txt, "Could not compact: nothing to compact") {
		t.Errorf("the client read %q; want why it could not compact", txt)
	}
	if n := len(c.srv.Log()); n != 0 {
		t.Errorf("%d model requests; want none", n)
	}
}

func TestOnlyAPromptThatIsTheCompactCommandCompacts(t *testing.T) {
	for text, want := range map[string]bool{"/compact": true, " /compact  be brief ": true, "/compacting": false, "please /compact": false} {
		if _, ok := compactArgs(text); ok != want {
			t.Errorf("compactArgs(%q) = %v, want %v", text, ok, want)
		}
	}
	if got, _ := compactArgs("/compact\tbe brief "); got != "be brief" {
		t.Errorf("instructions %q, want %q", got, "be brief")
	}
}
