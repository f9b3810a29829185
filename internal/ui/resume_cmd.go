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

// resumeCommand lists this folder's sessions, or switches to one: the
// run's lead, journal, sandbox and MCP servers are built for one session,
// so the chat ends with a SwitchSession and the CLI opens it anew on the
// chosen session, in the same process and terminal.
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
				m.switchSession(s.ID, current)
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
	b.WriteString("\n/resume ID continues one here")
	m.note(noteInfo, b.String())
}

// switchSession ends the chat so that the CLI continues id in its place,
// unless agents are at work (their work would be cut off unasked).
func (m *Model) switchSession(id, current string) {
	switch {
	case id == current:
		m.note(noteInfo, "This is session "+id+" already.")
	case m.busy || m.activeAgents() > 0:
		m.note(noteError, "Agents are at work: wait for them or stop them (Esc, /tasks), then /resume "+id+".")
	default:
		m.switchTo, m.quitting = id, true
	}
}

// SwitchSession is how the chat ended when the user chose, with /resume,
// to continue another session of the folder in its place.
type SwitchSession struct{ ID string }

func (s *SwitchSession) Error() string { return "switch to session " + s.ID }
