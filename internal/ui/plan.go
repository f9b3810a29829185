package ui

import (
	"fmt"

	"charm.land/lipgloss/v2"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Checklist marks of a plan's items.
const (
	markPending    = "☐"
	markInProgress = "◐"
	markCompleted  = "☑"
)

// planHeader is "Plan · 2/5 done".
func planHeader(todos []event.Todo) string {
	done := 0
	for _, td := range todos {
		if td.Status == tools.TodoCompleted {
			done++
		}
	}
	if len(todos) == 0 {
		return "Plan · cleared"
	}
	return fmt.Sprintf("Plan · %d/%d done", done, len(todos))
}

// planItem is one item as text: its mark and label (the activeForm while in
// progress).
func planItem(td event.Todo) (mark, label string) {
	switch td.Status {
	case tools.TodoCompleted:
		return markCompleted, td.Content
	case tools.TodoInProgress:
		return markInProgress, tools.TodoLabel(td)
	}
	return markPending, td.Content
}

// planLines renders a plan as the lead's checklist: the header after dot,
// then one line per item, the one in progress in the accent colour, the
// completed ones green and struck through.
func planLines(rc *renderCtx, dot string, todos []event.Todo) []string {
	th := rc.Theme
	out := []string{fit(dot+" "+th.bold().Render(planHeader(todos)), rc.Width)}
	for i, td := range todos {
		m := "    "
		if i == 0 {
			m = resultMarker
		}
		mark, label := planItem(td)
		var st lipgloss.Style
		switch td.Status {
		case tools.TodoCompleted:
			st = th.fg(th.Success).Strikethrough(true)
		case tools.TodoInProgress:
			st = th.accent().Bold(true)
		default:
			st = lipgloss.NewStyle()
		}
		out = append(out, fit(th.muted().Render(m)+st.Render(mark+" "+label), rc.Width))
	}
	return out
}

// planDetails are a sub-agent's plan lines in its expanded row: plain,
// since the row's details are muted as a whole.
func planDetails(todos []event.Todo) []string {
	if todos == nil {
		return nil
	}
	out := []string{planHeader(todos)}
	for _, td := range todos {
		mark, label := planItem(td)
		out = append(out, "  "+mark+" "+oneLine(label))
	}
	return out
}

// planEntry is a plan of the lead that no tool call of ours carries (a
// CLI's plan update), shown where it arrived.
type planEntry struct {
	todos []event.Todo
	cache lineCache
}

func (e *planEntry) lines(rc *renderCtx) []string {
	return e.cache.get(cacheKey{width: rc.Width}, func() []string {
		return planLines(rc, rc.Theme.fg(rc.Theme.Text).Render(dot), e.todos)
	})
}

// applyPlan shows an agent's new plan: the lead's in place of the
// todo_write call that set it (or as an entry of its own when no call of
// the lead carries it), a sub-agent's in its row of the agents tree, so
// sub-agents' plans never flood the lead's transcript.
func (m *Model) applyPlan(e event.Event) {
	d, ok := event.Payload[event.PlanUpdateData](e.Data)
	if !ok {
		return
	}
	if d.Todos == nil {
		d.Todos = []event.Todo{}
	}
	if !isLead(e) {
		if t := m.treeByAgent[e.AgentID]; t != nil {
			t.setPlan(e.AgentID, d.Todos)
		}
		return
	}
	if t, ok := m.tools[e.ToolCallID]; ok && e.ToolCallID != "" {
		t.plan = d.Todos
		t.version++
		return
	}
	m.tr.add(&planEntry{todos: d.Todos})
}
