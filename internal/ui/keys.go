package ui

import (
	"fmt"
	"strings"
	"time"

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
	if m.rewind != nil {
		m.rewind.key(m, s)
		return nil
	}
	if m.search != nil {
		m.searchKey(s, k.Text)
		m.refreshMenu()
		return nil
	}
	if m.menuKey(s) {
		return nil
	}
	switch s {
	case "shift+tab":
		m.cycleMode()
		return nil
	case "ctrl+r":
		m.startSearch()
		return nil
	case "esc":
		m.esc()
		return nil
	case "alt+esc": // two Escs read at once
		m.esc()
		m.esc()
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
	cmd := m.in.update(k)
	m.refreshMenu()
	return cmd
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

// esc stops the lead's turn. Background agents and teammates keep
// running, as Claude Code keeps background work: the hint says so, and a
// second Esc within quitWindow stops them too. With no background work,
// or a lead whose interrupt cannot keep it (an external CLI), Esc stops
// everything that runs.
func (m *Model) esc() {
	bg := 0
	if m.cfg.Backend != nil && m.cfg.Backend.KeepsBackground() {
		bg = m.backgroundWork()
	}
	again := !m.lastEsc.IsZero() && m.now.Sub(m.lastEsc) <= quitWindow
	m.lastEsc = time.Time{}
	if bg > 0 || m.working() || m.activeAgents() > 0 {
		m.idleEsc = time.Time{}
	}
	switch {
	case bg == 0:
		if m.working() || m.activeAgents() > 0 {
			m.interrupt("the user pressed Esc")
			return
		}
		m.escIdle()
		return
	case again:
		m.interrupt("the user pressed Esc twice")
		return
	case m.working() || m.activeAgents() > bg:
		if m.cfg.Backend != nil {
			m.cfg.Backend.InterruptTurn("the user pressed Esc")
		}
	}
	m.lastEsc = m.now
	them := "them"
	if bg == 1 {
		them = "it"
	}
	m.hint = fmt.Sprintf("%s running · Esc again stops %s (or /tasks)", plural(bg, "background agent keeps", "background agents keep"), them)
	m.waits.hintUntil = m.now.Add(quitWindow)
}

// backgroundWork counts the background agents and teammates at work.
func (m *Model) backgroundWork() int {
	n := 0
	for _, t := range m.trees {
		for _, r := range t.recs.Records() {
			if r.Background && r.Status.Active() {
				n++
			}
		}
	}
	if m.team != nil {
		n += m.team.active()
	}
	return n
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
	switch {
	case strings.HasPrefix(text, "/"):
		m.command(text)
	case strings.HasPrefix(text, "!") && strings.TrimSpace(text[1:]) != "":
		m.shell(strings.TrimSpace(text[1:]))
	case strings.HasPrefix(text, "#") && strings.TrimSpace(text[1:]) != "":
		m.remember(text[1:])
	default:
		m.sendWithMentions(text)
	}
}

// send shows what the user typed and gives the lead prompt (a custom
// command's expansion, or the text itself).
func (m *Model) send(typed, prompt string) {
	m.tr.add(&userEntry{text: typed})
	if len(m.pending) > 0 {
		// The user's ! output and # lines of the meantime go first.
		prompt = strings.Join(m.pending, "\n\n") + "\n\n" + prompt
		m.pending = nil
	}
	m.busy = true
	start := m.atStart
	m.atStart = nil
	if m.cfg.Backend != nil {
		submitAtStart(m.cfg.Backend, prompt, start)
	}
}
