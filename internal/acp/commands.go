package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// The slash commands a client may offer: a prompt that starts with one
// runs it instead of a turn of the lead. Advertised once a session opens.
var availableCommands = []sdk.AvailableCommand{{
	Name:        "compact",
	Description: "Summarise the conversation's older turns to free context; runs between turns",
	Input:       &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "instructions for the summary (optional)"}},
}}

// Command is a custom slash command of the session (a command file of
// .claude/commands or .atomic/commands), offered beside /compact.
type Command struct {
	Name, Description, Hint string
}

// commandsUpdate is the available_commands_update of availableCommands
// and the session's own commands.
func commandsUpdate(own []Command) sdk.SessionUpdate {
	all := append([]sdk.AvailableCommand(nil), availableCommands...)
	for _, c := range own {
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if ac.Description == "" {
			ac.Description = "/" + c.Name
		}
		if c.Hint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.Hint}}
		}
		all = append(all, ac)
	}
	return sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: all}}
}

// command runs a prompt that starts with a custom slash command: its
// prompt, expanded as the chat expands it (the !`commands` asked of the
// client like any command), is the turn's. ok is false for any other
// prompt. A command that cannot expand answers with why, as the chat
// notes it, and no turn runs.
func (s *session) command(ctx context.Context, text string, images []provider.Image) (stop sdk.StopReason, ok bool, err error) {
	if s.run.Expand == nil || !strings.HasPrefix(strings.TrimSpace(text), "/") {
		return "", false, nil
	}
	prompt, start, ok, err := s.run.Expand(ctx, text)
	switch {
	case !ok:
		return "", false, nil
	case ctx.Err() != nil:
		return sdk.StopReasonCancelled, true, nil
	case err != nil:
		s.push(sdk.UpdateAgentMessageText(err.Error()))
		s.flush(ctx)
		return sdk.StopReasonEndTurn, true, nil
	}
	stop, err = s.prompt(ctx, prompt, images, start)
	return stop, true, err
}

// compactArgs reports whether text is a /compact command, and its
// instructions for the summary.
func compactArgs(text string) (instructions string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "/compact")
	if !ok || (rest != "" && !strings.ContainsAny(rest[:1], " \t\n")) {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// compactLine says what the lead's compaction did.
func compactLine(d event.ContextCompactData) string {
	return fmt.Sprintf("Context compacted: %d → %d tokens (%d messages summarised).", d.Before, d.After, d.Summarised)
}

// compact runs a /compact prompt: the runtime compacts the lead between
// turns; the lead's context.compact event (a message, see onEvent) or the
// failure is the answer, sent before the prompt ends.
func (s *session) compact(ctx context.Context, instructions string) (sdk.StopReason, error) {
	s.turn.Lock()
	defer s.turn.Unlock()
	done := make(chan error, 1)
	s.run.Runtime.Compact(instructions, func(err error) { done <- err })
	select {
	case err := <-done:
		if err != nil {
			s.push(sdk.UpdateAgentMessageText("Could not compact: " + err.Error()))
		}
	case <-ctx.Done():
		return sdk.StopReasonCancelled, nil
	}
	s.flush(ctx)
	return sdk.StopReasonEndTurn, nil
}
