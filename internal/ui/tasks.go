package ui

import (
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// tasksPanel is the /tasks list: the background agents and shells of the session with
// status and elapsed time, one selected; x cancels it, esc closes.
type tasksPanel struct {
	sel int
}

// taskRow is one background agent and the tree that tracks it; depth is
// how many of the rows listed above it are its ancestors.
type taskRow struct {
	rec   lifecycle.Record
	tree  *treeEntry
	depth int
}

// backgroundTasks lists the background agents and shells of every tree,
// oldest tree first, each tree in its drawn order: a nested one under its
// ancestors, so stopping a row visibly stops what is listed under it.
func (m *Model) backgroundTasks() []taskRow {
	var out []taskRow
	for _, t := range m.trees {
		recs := t.recs.Records()
		parent := make(map[string]string, len(recs))
		for _, r := range recs {
			parent[r.ID] = r.ParentID
		}
		listed := map[string]bool{}
		for _, row := range nestRows(recs) {
			if !row.rec.Background {
				continue
			}
			depth := 0
			for p, n := parent[row.rec.ID], 0; p != "" && n < len(recs); p, n = parent[p], n+1 {
				if listed[p] {
					depth++
				}
			}
			listed[row.rec.ID] = true
			out = append(out, taskRow{row.rec, t, depth})
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
		line := fmt.Sprintf("%s%s%s %s · %s · %s · %s", mark, strings.Repeat("  ", row.depth), th.StatusStyle(r.Status).Render(dot), th.bold().Render(r.ID),
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
