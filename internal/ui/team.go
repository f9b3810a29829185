package ui

import (
	"fmt"
	"image/color"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// teamEntry is the team tree: one row per teammate with its role, status
// and last message. Each teammate is the reducer's record, as the bus's
// teammate.record events carry it whole (one per name: its latest
// incarnation); the tree only adds the last message each teammate sent.
type teamEntry struct {
	mates   []lifecycle.Teammate // in order of first appearance
	last    map[string]string    // teammate name → the last message it sent
	version int
	cache   lineCache
}

// set takes the reducer's record of teammate m.
func (t *teamEntry) set(m lifecycle.Teammate) {
	for i := range t.mates {
		if t.mates[i].Name == m.Name {
			if t.mates[i] != m {
				t.mates[i] = m
				t.version++
			}
			return
		}
	}
	t.mates = append(t.mates, m)
	t.version++
}

// message records the last message a teammate sent.
func (t *teamEntry) message(d event.TeamMessageData) {
	if d.From == "" || d.From == event.LeadID {
		return
	}
	if t.last == nil {
		t.last = map[string]string{}
	}
	t.last[d.From] = d.Content
	t.version++
}

// teammateColor is a teammate's dot colour, by the same rule as agents:
// only a finished teammate gets a finished colour.
func teammateColor(th Theme, s lifecycle.TeammateStatus) color.Color {
	switch s {
	case lifecycle.MateShutdown:
		return th.Success
	case lifecycle.MateError:
		return th.Danger
	case lifecycle.MateInterrupted:
		return th.Warning
	}
	return th.Muted
}

// active counts teammates still at work.
func (t *teamEntry) active() int {
	n := 0
	for _, m := range t.mates {
		if m.Status.Active() {
			n++
		}
	}
	return n
}

func (t *teamEntry) lines(rc *renderCtx) []string {
	return t.cache.get(cacheKey{width: rc.Width, expanded: rc.Expanded, version: t.version}, func() []string {
		th := rc.Theme
		mates := t.mates
		n, act := len(mates), t.active()
		noun := "teammates"
		if n == 1 {
			noun = "teammate"
		}
		head := fmt.Sprintf("Team · %d %s", n, noun)
		if act > 0 {
			head += fmt.Sprintf(" · %d active", act)
		}
		out := []string{fit(th.accent().Render(dot+" "+head), rc.Width)}
		if act == 0 {
			out[0] = fit(th.fg(th.Success).Render(dot)+" "+th.bold().Render(head), rc.Width)
		}
		for i, m := range mates {
			branch, cont := branchMid, contMid
			if i == len(mates)-1 {
				branch, cont = branchLast, contLast
			}
			row := th.muted().Render(branch) + th.fg(teammateColor(th, m.Status)).Render(dot) + " " + th.bold().Render(m.Name)
			if m.Role != "" {
				row += " · " + m.Role
			}
			row += th.muted().Render(" · " + string(m.Status))
			out = append(out, fit(row, rc.Width))
			sub, st := "No messages yet", th.muted()
			switch {
			case m.Error != "":
				sub, st = oneLine(m.Error), th.danger()
			case m.Waiting != "":
				sub = "Waiting for approval: " + m.Waiting
			case t.last[m.Name] != "":
				sub = oneLine(t.last[m.Name])
			}
			out = append(out, fit(th.muted().Render(cont+subMarker)+st.Render(sub), rc.Width))
		}
		return out
	})
}
