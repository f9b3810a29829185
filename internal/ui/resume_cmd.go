package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// resumeListedMsg is this folder's sessions, read for /resume.
type resumeListedMsg struct {
	id       string // the one asked for ("": list them)
	sessions []PickerSession
	err      error
	now      time.Time
}

// resumeCommand lists this folder's sessions, or says how to continue one.
// The chat does not switch in place: the run's lead, journal, sandbox and
// MCP servers are built for one session, and a resumed one is rebuilt
// from its history at start, so switching means starting Atomic anew.
func (m *Model) resumeCommand(args []string) {
	s := m.cfg.Session
	if s == nil {
		m.note(noteInfo, "No saved sessions in this run.")
		return
	}
	id := ""
	if len(args) > 0 {
		id = args[0]
	}
	m.later = func() tea.Msg {
		list, err := s.Sessions(context.Background())
		return resumeListedMsg{id: id, sessions: list, err: err, now: time.Now()}
	}
}

func (m *Model) resumeListed(msg resumeListedMsg) {
	current := m.info().SessionID
	switch {
	case msg.err != nil:
		m.note(noteError, "Could not list the sessions: "+msg.err.Error())
		return
	case msg.id != "":
		for _, s := range msg.sessions {
			if s.ID == msg.id {
				m.note(noteInfo, resumeHow(s.ID, current))
				return
			}
		}
		m.note(noteError, fmt.Sprintf("No session %s in this folder; /resume lists them (atomic sessions lists every folder's).", msg.id))
		return
	}
	var b strings.Builder
	n := 0
	for _, s := range msg.sessions {
		if s.ID == current {
			continue
		}
		if n == 0 {
			b.WriteString("Sessions of this folder, newest first:")
		}
		n++
		title := oneLine(s.Title)
		if title == "" {
			title = "(no prompt)"
		}
		fmt.Fprintf(&b, "\n  %s · %s · %s ago · %d agents · %s", s.ID, s.Status, age(msg.now.Sub(s.Started)), s.Agents, title)
	}
	if n == 0 {
		m.note(noteInfo, "No other sessions in this folder.")
		return
	}
	b.WriteString("\n/resume ID says how to continue one")
	m.note(noteInfo, b.String())
}

// resumeHow is how to continue id: quit, then start Atomic on it.
func resumeHow(id, current string) string {
	text := "To continue " + id + ", quit (/exit) and run: atomic --resume " + id
	if current != "" {
		text += "\nThis session stays saved: atomic --resume " + current + " comes back to it."
	}
	return text
}
