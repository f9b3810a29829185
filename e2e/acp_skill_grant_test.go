package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// A skill an editor sends while an earlier prompt's turn still runs keeps
// its allowed-tools for its own turn: the earlier turn's end revokes the
// lead's grants, so the skill's are taken as its own turn starts (as the
// chat does), not when the prompt arrives.
func TestACPASkillSentWhileAnEarlierTurnRunsKeepsItsGrantForItsOwnTurn(t *testing.T) {
	srv := server(t, `
rules:
  - {name: answer, match: {tool_result_contains: "released v2.1"}, respond: {text: "Version v2.1 is out."}}
  - name: release
    match: {last_user_contains: "Release checklist for v2.1: run release.sh"}
    respond:
      tool_calls: [{name: bash, input: {command: "sh release.sh v2.1"}}]
  - name: first
    match: {last_user_contains: "check the build"}
    respond:
      tool_calls: [{name: bash, input: {command: "echo building"}}]
  - {name: other, respond: {text: "done"}}
`)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		".claude/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release of this project\n" +
			"allowed-tools: Bash(sh release.sh:*)\n---\nRelease checklist for $ARGUMENTS: run release.sh with the version.\n",
		"release.sh": "echo released \"$1\"\n",
	})
	inFirst, secondSent, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	defer close(ended)
	var once sync.Once
	client := &acpClient{answer: func(r sdk.RequestPermissionRequest) string {
		if r.ToolCall.Title != nil && strings.Contains(*r.ToolCall.Title, "echo building") {
			// Hold the earlier turn until the skill's prompt has arrived.
			once.Do(func() { close(inFirst) })
			<-secondSent
			select { // Atomic cancels the ask when the new prompt cancels this one
			case <-time.After(time.Second):
			case <-ended:
			}
		}
		return "" // nothing is allowed by the editor: the skill's grant must do
	}}
	a := startACP(t, srv, t.TempDir(), client, "--trust-project-settings")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, s := a.session(t, ctx, dir, sdk.ClientCapabilities{})
	first := make(chan error, 1)
	go func() {
		_, err := a.prompt(ctx, s.SessionId, "check the build")
		first <- err
	}()
	select {
	case <-inFirst:
	case <-ctx.Done():
		t.Fatal("the first prompt's command was never asked")
	}
	second := make(chan sdk.PromptResponse, 1)
	go func() {
		resp, err := a.prompt(ctx, s.SessionId, "/release v2.1")
		if err != nil {
			t.Errorf("/release v2.1: %v", err)
		}
		second <- resp
	}()
	close(secondSent)
	<-second
	<-first
	for _, r := range client.asked {
		if r.ToolCall.Title != nil && strings.Contains(*r.ToolCall.Title, "release.sh") {
			t.Errorf("the skill's script was asked of the editor: its grant was lost (%s)", *r.ToolCall.Title)
		}
	}
	if got := loopback.ByRule(srv.Log(), "answer"); len(got) != 1 {
		var rules []string
		for _, e := range srv.Log() {
			rules = append(rules, e.Rule)
		}
		t.Fatalf("release.sh's output reached the model %d times, want 1; rules answered: %v", len(got), rules)
	}
}
