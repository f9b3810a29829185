package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// key handles a key press. The approval prompt and the tasks panel take
// keys first; otherwise global keys act and the rest edit the input.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s != "ctrl+c" {
		m.hint = ""
	}
	switch s {
	case "ctrl+c":
		return m.ctrlC()
	case "ctrl+o":
		m.expanded = !m.expanded
		return nil
	case "pgup":
		m.offset += max(m.height/2, 1)
		return nil
	case "pgdown":
		m.offset = max(m.offset-max(m.height/2, 1), 0)
		return nil
	}
	if m.approval != nil {
		m.approvalKey(s)
		return nil
	}
	if m.tasks != nil {
		m.tasks.key(m, s)
		return nil
	}
	switch s {
	case "esc":
		if m.working() || m.activeAgents() > 0 {
			m.interrupt("the user pressed Esc")
		}
		return nil
	case "ctrl+d":
		if m.in.empty() {
			m.quitting = true
			return nil
		}
	case "enter":
		if m.in.continued() {
			return nil
		}
		m.submit(m.in.take())
		return nil
	}
	return m.in.update(k)
}

// ctrlC interrupts what is running; a second ctrl+c within quitWindow
// quits. With nothing running the first one clears the input.
func (m *Model) ctrlC() tea.Cmd {
	if !m.lastCtrlC.IsZero() && m.now.Sub(m.lastCtrlC) <= quitWindow {
		m.quitting = true
		return nil
	}
	m.lastCtrlC = m.now
	switch {
	case m.working() || m.activeAgents() > 0:
		m.interrupt("the user pressed Ctrl+C")
	default:
		m.in.reset()
	}
	m.hint, m.waits.hintUntil = "Press Ctrl+C again to quit", m.now.Add(quitWindow)
	return nil
}

// interrupt stops the lead's turn and the sub-agents.
func (m *Model) interrupt(reason string) {
	if m.cfg.Backend != nil {
		m.cfg.Backend.Interrupt(reason)
	}
}

// submit sends a prompt or runs a slash command.
func (m *Model) submit(text string) {
	if text == "" {
		return
	}
	m.offset = 0
	if strings.HasPrefix(text, "/") {
		m.command(text)
		return
	}
	m.send(text, text)
}

// send shows what the user typed and gives the lead prompt (a custom
// command's expansion, or the text itself).
func (m *Model) send(typed, prompt string) {
	m.tr.add(&userEntry{text: typed})
	m.busy = true
	if m.cfg.Backend != nil {
		m.cfg.Backend.Submit(prompt)
	}
}
