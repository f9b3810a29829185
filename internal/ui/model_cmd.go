package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/editdist"
)

// modelListTimeout bounds the wait for the provider's model list: a slow
// service leaves the name unchecked rather than the command hanging.
const modelListTimeout = 3 * time.Second

// modelListedMsg is the provider's model list, fetched for /model NAME.
type modelListedMsg struct {
	name string
	ids  []string
	err  error
}

// modelCommand shows the model, or checks NAME against the provider's
// model list off the UI's loop and switches once it is known.
func (m *Model) modelCommand(args []string) {
	if len(args) == 0 {
		m.note(noteInfo, "Model: "+m.model+" · /model NAME switches (and cancels background work)")
		return
	}
	name, b := args[0], m.cfg.Backend
	if b == nil {
		return
	}
	if b.ProviderName() == "demo" {
		m.switchModel(name, "the demo ignores it: its answers are canned whatever the model")
		return
	}
	m.note(noteInfo, "Checking "+name+" against the provider's models…")
	m.later = func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), modelListTimeout)
		defer cancel()
		ids, err := b.ListModels(ctx)
		return modelListedMsg{name, ids, err}
	}
}

// modelListed switches to a listed name, refuses an unlisted one naming
// the nearest, and switches unchecked when there is no list.
func (m *Model) modelListed(msg modelListedMsg) {
	switch {
	case msg.err != nil:
		why := msg.err.Error()
		if errors.Is(msg.err, context.DeadlineExceeded) {
			why = fmt.Sprintf("the provider did not list its models within %s", modelListTimeout)
		}
		m.switchModel(msg.name, "unchecked: "+why)
	case len(msg.ids) == 0:
		m.switchModel(msg.name, "unchecked: the provider listed no models")
	case slices.Contains(msg.ids, msg.name):
		m.switchModel(msg.name, "")
	default:
		text := fmt.Sprintf("No model %q at this provider; kept %s.", msg.name, m.model)
		if near := closeMatches(msg.name, msg.ids, 3); len(near) > 0 {
			text += " Close matches: " + strings.Join(near, ", ")
		}
		m.note(noteError, text)
	}
}

// switchModel switches the lead to name, with a remark after the line.
func (m *Model) switchModel(name, remark string) {
	m.cfg.Backend.SwitchModel(name)
	m.model = name
	line := "Switched to model " + name
	if remark != "" {
		line += " (" + remark + ")"
	}
	m.note(noteSuccess, line)
}

// closeMatches are up to n of ids nearest name: those containing it (or
// contained in it) first, then by edit distance, none further than half
// of name's length.
func closeMatches(name string, ids []string, n int) []string {
	type cand struct {
		id   string
		dist int
	}
	low := strings.ToLower(name)
	var cs []cand
	for _, id := range ids {
		l := strings.ToLower(id)
		d := editdist.Levenshtein(low, l)
		if strings.Contains(l, low) || strings.Contains(low, l) {
			d = 0
		}
		if d <= max(2, len(name)/2) {
			cs = append(cs, cand{id, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.dist - b.dist })
	out := make([]string, 0, n)
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.id)
	}
	return out
}
