package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/event"
)

// The slash commands a client may offer: a prompt that starts with one
// runs it instead of a turn of the lead. Advertised once a session opens.
var availableCommands = []sdk.AvailableCommand{{
	Name:        "compact",
	Description: "Summarise the conversation's older turns to free context; runs between turns",
	Input:       &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "instructions for the summary (optional)"}},
}}

// commandsUpdate is the available_commands_update of availableCommands.
func commandsUpdate() sdk.SessionUpdate {
	return sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: availableCommands}}
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
