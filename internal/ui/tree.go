package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// Row limits of the agents tree (SPEC §4): compact shows 5 rows, expanded
// up to 20, the rest as "+N more".
const (
	compactRows  = 5
	expandedRows = 20
)

// Tree connectors.
const (
	branchMid  = "├─ "
	branchLast = "└─ "
	contMid    = "│    "
	contLast   = "     "
	subMarker  = "╰ "
	dot        = "●"
)

// treeView is what one frame of a tree needs besides the records.
type treeView struct {
	Now      time.Time
	Expanded bool
	Width    int
	Theme    Theme
	// Calls lists each agent's tool calls by agent id (expanded view).
	Calls map[string][]string
	// Plans holds each agent's latest plan by agent id (expanded view).
	Plans map[string][]event.Todo
	// Backends: the tree mixes backends, so each row names its own.
	Backends bool
	// Context holds each native agent's context use by agent id.
	Context map[string]contextUse
}

// mixed reports whether some agent of st runs on another backend than
// the lead (lead: "" counts as native).
func mixed(st *lifecycle.View, lead string) bool {
	if lead == "" {
		lead = backend.Native
	}
	for _, r := range st.Sorted() {
		if r.Backend != "" && r.Backend != lead {
			return true
		}
	}
	return false
}

// backendOf is the backend a lead's session.start provider names: an
// external CLI by its name, else Atomic's own loop.
func backendOf(provider string) string {
	if backend.External(provider) {
		return provider
	}
	return backend.Native
}

// renderAgentTree draws the agents tree of st as lines: the header, then a
// row and a sub-line per agent (plus prompt and result when expanded). All
// status facts are the lifecycle reducer's records (the agent.status
// events st was handed) and its helpers: Header, Sorted, SubLine, Elapsed;
// this function only lays them out and picks colours.
func renderAgentTree(st *lifecycle.View, v treeView) []string {
	if st.Len() == 0 {
		return nil
	}
	th := v.Theme
	hint := " (ctrl+o to expand)"
	limit := compactRows
	if v.Expanded {
		hint = " (ctrl+o to collapse)"
		limit = expandedRows
	}
	lines := make([]string, 0, 2*min(st.Len(), limit)+2)

	header := dot + " " + st.Header() + hint
	c := st.Counts()
	if c.Active() > 0 {
		header = th.accent().Render(header)
	} else {
		done := lifecycle.Completed
		switch {
		case c.Error > 0:
			done = lifecycle.Error
		case c.Interrupted > 0:
			done = lifecycle.Interrupted
		}
		header = th.StatusStyle(done).Render(dot) + " " + th.bold().Render(st.Header()) + th.muted().Render(hint)
	}
	lines = append(lines, fit(header, v.Width))

	rows := nestRows(st.Sorted())
	if !v.Expanded {
		rows = collapse(rows) // each top row says what its subtree hides
	}
	shown := rows
	more := 0
	if len(rows) > limit {
		shown, more = rows[:limit], len(rows)-limit
	}
	for i, row := range shown {
		r, branch, cont := row.rec, row.branch, row.cont
		if i == len(shown)-1 && more > 0 && row.depth == 0 {
			branch, cont = branchMid, contMid // "+N more" follows at this level
		}
		lines = append(lines, fit(th.muted().Render(branch)+agentRow(r, v), v.Width))
		sub := lifecycle.SubLine(r) + row.hidden
		subStyle := th.muted()
		if r.Status == lifecycle.Error {
			subStyle = th.danger()
		}
		lines = append(lines, fit(th.muted().Render(cont+subMarker)+subStyle.Render(sub), v.Width))
		if v.Expanded {
			for _, d := range agentDetails(r, v.Calls[r.ID], v.Plans[r.ID]) {
				lines = append(lines, fit(th.muted().Render(cont+"  "+d), v.Width))
			}
		}
	}
	if more > 0 {
		lines = append(lines, th.muted().Render(branchLast+"+"+strconv.Itoa(more)+" more"))
	}
	return lines
}

// treeRow is one agent's place in the tree: its record, the connector
// before its row (its ancestors' continuations, then its branch) and the
// one before its sub-line and details.
type treeRow struct {
	rec          lifecycle.Record
	branch, cont string
	depth        int
	// hidden says what of its subtree a collapsed row hides: " · +3
	// agents, 1 shell" (collapse).
	hidden string
}

// collapse keeps the top rows of rows (nestRows' order), each counting the
// agents and shells beneath it that it hides.
func collapse(rows []treeRow) []treeRow {
	out := rows[:0:0]
	for i := 0; i < len(rows); {
		top := rows[i]
		agents, shells := 0, 0
		for i++; i < len(rows) && rows[i].depth > top.depth; i++ {
			if rows[i].rec.IsShell() {
				shells++
			} else {
				agents++
			}
		}
		top.hidden = hiddenCount(agents, shells)
		out = append(out, top)
	}
	return out
}

// hiddenCount is " · +3 agents, 1 shell", "" for nothing hidden.
func hiddenCount(agents, shells int) string {
	var parts []string
	if agents > 0 {
		parts = append(parts, plural(agents, "agent", "agents"))
	}
	if shells > 0 {
		parts = append(parts, plural(shells, "shell", "shells"))
	}
	if len(parts) == 0 {
		return ""
	}
	return " · +" + strings.Join(parts, ", ")
}

// nestRows lays recs (in the reducer's order) out as a tree: an agent
// whose parent is another record's agent is drawn under that row, after
// its sub-line, in the same order; the others (the lead's, or a parent not
// in this tree) are the top rows.
func nestRows(recs []lifecycle.Record) []treeRow {
	ids := make(map[string]bool, len(recs))
	for _, r := range recs {
		ids[r.ID] = true
	}
	kids := map[string][]lifecycle.Record{}
	var roots []lifecycle.Record
	for _, r := range recs {
		if r.ParentID != "" && r.ParentID != r.ID && ids[r.ParentID] {
			kids[r.ParentID] = append(kids[r.ParentID], r)
		} else {
			roots = append(roots, r)
		}
	}
	out := make([]treeRow, 0, len(recs))
	seen := make(map[string]bool, len(recs))
	var walk func(level []lifecycle.Record, prefix string, depth int)
	walk = func(level []lifecycle.Record, prefix string, depth int) {
		for i, r := range level {
			if seen[r.ID] {
				continue
			}
			seen[r.ID] = true
			branch, cont := branchMid, contMid
			if i == len(level)-1 {
				branch, cont = branchLast, contLast
			}
			out = append(out, treeRow{rec: r, branch: prefix + branch, cont: prefix + cont, depth: depth})
			walk(kids[r.ID], prefix+cont, depth+1)
		}
	}
	walk(roots, "", 0)
	for _, r := range recs { // a parent cycle: whatever was left out, on top
		if !seen[r.ID] {
			seen[r.ID] = true
			out = append(out, treeRow{rec: r, branch: branchMid, cont: contMid})
		}
	}
	return out
}

// agentRow is the first line of an agent's row after its connector: status
// dot, type (its backend and worker where they matter), description, tool
// uses and elapsed time.
func agentRow(r lifecycle.Record, v treeView) string {
	if r.IsShell() { // "$ sleep 5 · 3s"; its last output line is the sub-line
		return v.Theme.StatusStyle(r.Status).Render(dot) + " " + v.Theme.bold().Render("$ "+oneLine(r.Command)) +
			v.Theme.muted().Render(" · "+lifecycle.FormatDuration(r.Elapsed(v.Now)))
	}
	var b strings.Builder
	b.WriteString(v.Theme.StatusStyle(r.Status).Render(dot))
	b.WriteByte(' ')
	b.WriteString(v.Theme.bold().Render(r.Name))
	if v.Backends && r.Backend != "" {
		b.WriteString(v.Theme.muted().Render(" [" + r.Backend + "]"))
	}
	if r.Worker != "" { // a remote worker runs it (NATS)
		b.WriteString(v.Theme.muted().Render(" @" + r.Worker))
	}
	b.WriteString(worktreeTag(r, v.Theme))
	b.WriteString(v.Theme.muted().Render(sandboxTag(r.Sandbox)))
	if r.Description != "" {
		b.WriteString(" · ")
		b.WriteString(r.Description)
	}
	b.WriteString(v.Theme.muted().Render(" · " + toolUses(r.ToolUses) + contextTag(v.Context[r.ID]) + " · " +
		lifecycle.FormatDuration(r.Elapsed(v.Now))))
	return b.String()
}

// contextTag is an agent's context use: " · 42% ctx" of a known window,
// " · 12.0k ctx" of an unknown one, nothing before its first answer (or
// for an external CLI, which reports none).
func contextTag(c contextUse) string {
	switch {
	case c.used <= 0:
		return ""
	case c.window > 0:
		return fmt.Sprintf(" · %d%% ctx", c.used*100/c.window)
	}
	return " · " + tokens(c.used) + " ctx"
}

// worktreeTag marks the row of an agent isolated in a git worktree of its
// own, whose changes are not in the lead's tree until merged.
func worktreeTag(r lifecycle.Record, th Theme) string {
	if r.Worktree == "" {
		return ""
	}
	return th.muted().Render(" ⎇ worktree")
}

// sandboxTag marks an agent whose commands the kernel confines: " [ro]"
// for read-only, " [sandbox]" for workspace-write, nothing otherwise.
func sandboxTag(mode string) string {
	switch mode {
	case "":
		return ""
	case "read-only":
		return " [ro]"
	}
	return " [sandbox]"
}

// toolUses is "1 tool use" or "N tool uses".
func toolUses(n int) string {
	if n == 1 {
		return "1 tool use"
	}
	return strconv.Itoa(n) + " tool uses"
}

// agentDetails are the expanded lines of a row: the prompt, the agent's
// plan, its tool calls (the latest maxCalls), then the result excerpt or
// the error.
func agentDetails(r lifecycle.Record, calls []string, plan []event.Todo) []string {
	var out []string
	if p := oneLine(r.Prompt); p != "" {
		out = append(out, "Prompt: "+p)
	}
	out = append(out, planDetails(plan)...)
	if n := len(calls); n > maxCalls {
		out = append(out, fmt.Sprintf("… %d earlier tool calls", n-maxCalls))
		calls = calls[n-maxCalls:]
	}
	for _, c := range calls {
		out = append(out, "› "+c)
	}
	switch {
	case r.Status == lifecycle.Error && r.Error != "":
		for i, l := range excerpt(r.Error, 3) {
			out = append(out, labelled(i, "Error: ", l))
		}
	case r.Result != "":
		for i, l := range excerpt(r.Result, 3) {
			out = append(out, labelled(i, "Result: ", l))
		}
	case r.Ack != "":
		out = append(out, "Spawned: "+oneLine(r.Ack))
	}
	return out
}

// labelled prefixes the first line with label and indents the others under it.
func labelled(i int, label, line string) string {
	if i == 0 {
		return label + line
	}
	return strings.Repeat(" ", len(label)) + line
}

// excerpt returns up to n non-blank lines of s, trimmed, with "…" on the last
// when more were left out.
func excerpt(s string, n int) []string {
	var out []string
	for line := range strings.Lines(s) {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if len(out) == n {
			out[n-1] += " …"
			break
		}
		out = append(out, t)
	}
	return out
}

// oneLine squeezes s onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// fit truncates a styled line to width cells (no limit when width <= 0).
func fit(s string, width int) string {
	if width <= 0 || ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// treeEntry is one agents tree in the transcript: the task calls of one
// assistant message. Its records are the bus reducer's, as the agent.status
// events routed to it carry them; it runs no reducer of its own. It stays
// in the transcript when every agent is done.
type treeEntry struct {
	recs lifecycle.View
	// calls lists each agent's tool calls ("read go.mod"), for the
	// expanded view.
	calls map[string][]string
	// plans holds each agent's latest plan (plan.update).
	plans map[string][]event.Todo
	// ctx holds each agent's context use (usage.update, context.compact).
	ctx     map[string]contextUse
	version int
	cache   lineCache
}

// maxCalls is how many of an agent's latest tool calls the expanded view
// lists.
const maxCalls = 8

// call records a tool call of agent id.
func (t *treeEntry) call(id, what string) {
	if t.calls == nil {
		t.calls = map[string][]string{}
	}
	t.calls[id] = append(t.calls[id], oneLine(what))
	t.version++
}

// setContext records agent id's context use.
func (t *treeEntry) setContext(id string, c contextUse) {
	if t.ctx == nil {
		t.ctx = map[string]contextUse{}
	}
	if t.ctx[id] != c {
		t.ctx[id] = c
		t.version++
	}
}

// setPlan records agent id's new plan.
func (t *treeEntry) setPlan(id string, todos []event.Todo) {
	if t.plans == nil {
		t.plans = map[string][]event.Todo{}
	}
	t.plans[id] = todos
	t.version++
}

// put stores the record an agent.status event carries and returns the one
// it replaced.
func (t *treeEntry) put(r lifecycle.Record) (old lifecycle.Record, found bool) {
	old, found = t.recs.Put(r)
	if !found || old != r {
		t.version++
	}
	return old, found
}

func (t *treeEntry) lines(rc *renderCtx) []string {
	v := treeView{Now: rc.Now, Expanded: rc.Expanded, Width: rc.Width, Theme: rc.Theme, Calls: t.calls, Plans: t.plans,
		Backends: mixed(&t.recs, rc.LeadBackend), Context: t.ctx}
	if t.recs.Active() > 0 {
		return renderAgentTree(&t.recs, v) // elapsed times tick: no cache
	}
	key := cacheKey{width: rc.Width, expanded: rc.Expanded, version: t.version, backends: v.Backends}
	return t.cache.get(key, func() []string {
		return renderAgentTree(&t.recs, v)
	})
}
