package ui

import (
	"fmt"

	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// tasksPanel is the /tasks list: the background agents and shells of the session with
// status and elapsed time, one selected; x cancels it, esc closes.
type tasksPanel struct {
	sel int
}

// taskRow is one background agent and the tree that tracks it.
type taskRow struct {
	rec  lifecycle.Record
	tree *treeEntry
}

// backgroundTasks lists the background agents of every tree, oldest first.
func (m *Model) backgroundTasks() []taskRow {
	var out []taskRow
	for _, t := range m.trees {
		for _, r := range t.recs.Records() {
			if r.Background {
				out = append(out, taskRow{r, t})
			}
		}
	}
	return out
}

func (p *tasksPanel) view(m *Model) []string {
	th := m.theme
	rows := m.backgroundTasks()
	out := []string{th.accent().Render(dot+" Background tasks") + th.muted().Render(" · ↑/↓ select · x cancel · esc close")}
	if len(rows) == 0 {
		return append(out, th.muted().Render(indent+"No background tasks."))
	}
	p.sel = min(p.sel, len(rows)-1)
	for i, row := range rows {
		r := row.rec
		mark := indent
		if i == p.sel {
			mark = th.accent().Render(userMarker)
		}
		what := r.Description
		if r.IsShell() {
			what = "$ " + oneLine(r.Command)
		}
		line := fmt.Sprintf("%s%s %s · %s · %s · %s", mark, th.StatusStyle(r.Status).Render(dot), th.bold().Render(r.ID),
			what, r.Status, lifecycle.FormatDuration(r.Elapsed(m.now)))
		out = append(out, fit(line, m.width))
	}
	return out
}

func (p *tasksPanel) key(m *Model, s string) {
	rows := m.backgroundTasks()
	switch s {
	case "esc", "q":
		m.tasks = nil
		m.in.ta.Focus()
	case "up", "k":
		p.sel = max(p.sel-1, 0)
	case "down", "j":
		p.sel = min(p.sel+1, max(len(rows)-1, 0))
	case "x", "c", "delete", "backspace":
		if p.sel < len(rows) && rows[p.sel].rec.Status.Active() {
			m.cancelTask(rows[p.sel].rec.ID)
		}
	}
}
