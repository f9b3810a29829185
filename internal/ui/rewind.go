package ui

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/checkpoint"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// rewindPanel is the /rewind picker (also Esc twice on an idle, empty
// input): the prompts newest first, then what to restore to before the
// chosen one.
type rewindPanel struct {
	list   []checkpoint.Summary
	sel    int
	chosen *checkpoint.Summary // set: choosing what to restore
	action int
}

// rewindActions are the restore choices, in Claude Code's order.
var rewindActions = [...]struct {
	label              string
	code, conversation bool
}{
	{"Restore code and conversation", true, true},
	{"Restore conversation", false, true},
	{"Restore code", true, false},
	{"Cancel", false, false},
}

// rewindDoneMsg carries a rewind's outcome back to Update.
type rewindDoneMsg struct {
	req runtime.RewindRequest
	res runtime.Rewound
	err error
}

// openRewind opens the picker, or says why not.
func (m *Model) openRewind() {
	if m.cfg.Backend == nil {
		return
	}
	if m.working() || m.activeAgents() > 0 || m.backgroundWork() > 0 {
		m.note(noteError, "Cannot rewind while agents or shells run: stop them first (Esc twice, or /tasks)")
		return
	}
	list := m.cfg.Backend.Checkpoints()
	if len(list) == 0 {
		m.note(noteInfo, "No prompts to rewind to yet (checkpoints are kept for this session's prompts only)")
		return
	}
	m.rewind = &rewindPanel{list: list}
	m.in.ta.Blur()
}

func (p *rewindPanel) view(m *Model) []string {
	th := m.theme
	if c := p.chosen; c != nil {
		out := []string{th.accent().Render(dot+" Rewind to before: ") + oneLine(c.Prompt) + th.muted().Render(" · ↑/↓ select · enter confirm · esc back")}
		for i, a := range rewindActions {
			mark := indent
			if i == p.action {
				mark = th.accent().Render(userMarker)
			}
			out = append(out, fit(mark+a.label, m.width))
		}
		return out
	}
	out := []string{th.accent().Render(dot+" Rewind") + th.muted().Render(" · ↑/↓ select · enter choose · esc close"),
		th.muted().Render(indent + "Changes made by bash commands are not tracked, only those of the file tools and worktree merges.")}
	// A long session's prompts scroll: a window of rows around the pick.
	rows := max(m.height/2, 5)
	from := min(max(p.sel-rows/2, 0), max(len(p.list)-rows, 0))
	for i := from; i < len(p.list) && i < from+rows; i++ {
		c := p.list[i]
		mark := indent
		if i == p.sel {
			mark = th.accent().Render(userMarker)
		}
		out = append(out, fit(fmt.Sprintf("%s%s %s", mark, oneLine(c.Prompt), th.muted().Render("· "+changed(len(c.Files)))), m.width))
	}
	return out
}

// changed says how many files a prompt changed.
func changed(n int) string {
	if n == 0 {
		return "no file changed"
	}
	return plural(n, "file changed", "files changed")
}

func (p *rewindPanel) key(m *Model, s string) {
	close := func() {
		m.rewind = nil
		m.in.ta.Focus()
	}
	if p.chosen == nil {
		switch s {
		case "esc", "q":
			close()
		case "up", "k":
			p.sel = max(p.sel-1, 0)
		case "down", "j":
			p.sel = min(p.sel+1, len(p.list)-1)
		case "enter":
			p.chosen = &p.list[p.sel]
		}
		return
	}
	switch s {
	case "esc":
		p.chosen, p.action = nil, 0
	case "up", "k":
		p.action = max(p.action-1, 0)
	case "down", "j":
		p.action = min(p.action+1, len(rewindActions)-1)
	case "1", "2", "3", "4":
		p.action = int(s[0] - '1')
		fallthrough
	case "enter":
		a := rewindActions[p.action]
		seq := p.chosen.Seq
		close()
		if !a.code && !a.conversation {
			return
		}
		m.startRewind(runtime.RewindRequest{Seq: seq, Code: a.code, Conversation: a.conversation})
	}
}

// startRewind asks the run to rewind; the outcome comes as rewindDoneMsg.
func (m *Model) startRewind(req runtime.RewindRequest) {
	done := make(chan rewindDoneMsg, 1)
	m.cfg.Backend.Rewind(req, func(res runtime.Rewound, err error) { done <- rewindDoneMsg{req, res, err} })
	m.later = tea.Batch(m.later, func() tea.Msg { return <-done })
}

// rewindDone says what the rewind did; a rewound conversation gives its
// prompt back to the input, as Claude Code does.
func (m *Model) rewindDone(msg rewindDoneMsg) {
	if msg.err != nil {
		m.note(noteError, "Could not rewind: "+msg.err.Error())
		return
	}
	var parts []string
	if msg.req.Conversation {
		parts = append(parts, "the conversation")
		m.in.ta.SetValue(msg.res.Prompt)
	}
	if msg.req.Code {
		c := msg.res.Code
		parts = append(parts, fmt.Sprintf("the code (%s restored, %s deleted)", plural(len(c.Written), "file", "files"), plural(len(c.Deleted), "file", "files")))
	}
	line := fmt.Sprintf("Rewound %s to before “%s”", strings.Join(parts, " and "), oneLine(msg.res.Prompt))
	if len(msg.res.Code.Lost) > 0 {
		var lost []string
		for p, why := range msg.res.Code.Lost {
			lost = append(lost, filepath.Base(p)+": "+why)
		}
		sort.Strings(lost)
		line += "; not restored: " + strings.Join(lost, ", ")
	}
	m.note(noteInfo, line)
}

// escIdle handles Esc while nothing runs: twice within quitWindow on an
// empty input opens the rewind picker, as in Claude Code.
func (m *Model) escIdle() {
	if !m.in.empty() {
		m.idleEsc = time.Time{}
		return
	}
	if !m.idleEsc.IsZero() && m.now.Sub(m.idleEsc) <= quitWindow {
		m.idleEsc = time.Time{}
		m.openRewind()
		return
	}
	m.idleEsc = m.now
}
