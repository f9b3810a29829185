package ui

import (
	"fmt"
	"image/color"
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
)

// member is one teammate as the team tree shows it.
type member struct {
	name, role, status, err string
	last                    string // the last message it sent
}

// teamEntry is the team tree: one row per teammate with its role, status
// and last message. It is fed only by teammate.status and team.message
// events.
type teamEntry struct {
	members []*member
	version int
	cache   lineCache
}

func (t *teamEntry) member(name string) *member {
	for _, m := range t.members {
		if m.name == name {
			return m
		}
	}
	m := &member{name: name}
	t.members = append(t.members, m)
	return m
}

// status applies a teammate.status payload.
func (t *teamEntry) status(d event.TeammateStatusData) {
	m := t.member(d.Name)
	m.status = d.Status
	if d.Role != "" {
		m.role = d.Role
	}
	m.err = d.Error
	t.version++
}

// message records the last message a teammate sent.
func (t *teamEntry) message(d event.TeamMessageData) {
	if d.From == "" || d.From == leadID {
		return
	}
	t.member(d.From).last = d.Content
	t.version++
}

// teammateDone reports whether a teammate status is final. The teams
// package names statuses freely; these are the words for an ended teammate.
func teammateDone(status string) bool {
	switch strings.ToLower(status) {
	case "completed", "done", "finished", "stopped", "shutdown", "error", "failed", "interrupted", "cancelled", "canceled", "killed":
		return true
	}
	return false
}

// teammateColor is a teammate's dot colour, by the same rule as agents:
// only a finished teammate gets a finished colour.
func teammateColor(th Theme, status string) color.Color {
	switch strings.ToLower(status) {
	case "completed", "done", "finished", "stopped", "shutdown":
		return th.Success
	case "error", "failed":
		return th.Danger
	case "interrupted", "cancelled", "canceled", "killed":
		return th.Warning
	}
	return th.Muted
}

// active counts teammates still at work.
func (t *teamEntry) active() int {
	n := 0
	for _, m := range t.members {
		if !teammateDone(m.status) {
			n++
		}
	}
	return n
}

func (t *teamEntry) lines(rc *renderCtx) []string {
	return t.cache.get(cacheKey{width: rc.Width, expanded: rc.Expanded, version: t.version}, func() []string {
		th := rc.Theme
		n, act := len(t.members), t.active()
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
		for i, m := range t.members {
			branch, cont := branchMid, contMid
			if i == len(t.members)-1 {
				branch, cont = branchLast, contLast
			}
			row := th.muted().Render(branch) + th.fg(teammateColor(th, m.status)).Render(dot) + " " + th.bold().Render(m.name)
			if m.role != "" {
				row += " · " + m.role
			}
			row += th.muted().Render(" · " + m.status)
			out = append(out, fit(row, rc.Width))
			sub, st := "No messages yet", th.muted()
			switch {
			case m.err != "":
				sub, st = oneLine(m.err), th.danger()
			case m.last != "":
				sub = oneLine(m.last)
			}
			out = append(out, fit(th.muted().Render(cont+subMarker)+st.Render(sub), rc.Width))
		}
		return out
	})
}
