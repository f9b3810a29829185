package ui

import (
	"strings"
)

// search is Ctrl+R's reverse search over earlier prompts: this session's
// and, before them, the folder's stored ones (Config.History).
type search struct {
	query string
	// at is the index of the match shown in the searched list (-1: none).
	at    int
	draft string
}

// prompts is what Ctrl+R searches, oldest first.
func (m *Model) prompts() []string {
	return append(append([]string(nil), m.cfg.History...), m.in.history...)
}

// find moves to the newest match of the query older than index before.
func (m *Model) find(before int) {
	all := m.prompts()
	q := strings.ToLower(m.search.query)
	for i := min(before, len(all)) - 1; i >= 0; i-- {
		if strings.Contains(strings.ToLower(all[i]), q) {
			m.search.at = i
			return
		}
	}
	if before >= len(all) {
		m.search.at = -1
	}
}

// searchKey handles a key during a search: text narrows it, ctrl+r goes
// to an older match, enter puts the match in the input to edit or send,
// esc (or ctrl+g) leaves the input as it was.
func (m *Model) searchKey(k string, text string) {
	s := m.search
	switch k {
	case "ctrl+r":
		if s.at > 0 {
			m.find(s.at)
		}
	case "backspace":
		if s.query != "" {
			r := []rune(s.query)
			s.query = string(r[:len(r)-1])
			m.find(len(m.prompts()))
		}
	case "enter", "tab", "right", "left":
		if s.at >= 0 {
			m.in.ta.SetValue(m.prompts()[s.at])
		}
		m.search = nil
	case "esc", "ctrl+g", "ctrl+c":
		m.in.ta.SetValue(s.draft)
		m.search = nil
	default:
		if text != "" {
			s.query += text
			m.find(len(m.prompts()))
		}
	}
}

// startSearch opens Ctrl+R's search on the newest prompt.
func (m *Model) startSearch() {
	if load := m.cfg.LoadHistory; load != nil {
		m.cfg.LoadHistory = nil
		m.cfg.History = append(load(), m.cfg.History...)
	}
	m.search = &search{draft: m.in.value()}
	m.find(len(m.prompts()))
}

// searchView replaces the input during a search.
func (m *Model) searchView() []string {
	s := m.search
	match := ""
	label := "(reverse-i-search)"
	if s.at >= 0 {
		match = oneLine(m.prompts()[s.at])
	} else if s.query != "" {
		label = "(failing reverse-i-search)"
	}
	return []string{fit(m.theme.accent().Render(label+"`"+s.query+"': ")+match, m.width)}
}
