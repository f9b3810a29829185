package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// maxDiffLines bounds the diff shown in an approval prompt.
const maxDiffLines = 16

// approvalChoices are the answers in the order shown.
var approvalChoices = []struct {
	label, keys string
	answer      permission.Answer
}{
	{"Allow once", "y", permission.AllowOnce},
	{"Allow for this session", "a", permission.AllowSession},
	{"Deny", "n, esc", permission.Deny},
}

// approvalView is the prompt for the head of the approval queue: who asks,
// what it wants to run or change (the diff of an edit), and the choices.
func (m *Model) approvalView() []string {
	r := m.approval
	th := m.theme
	who := r.Who() // a nested agent by its place in the tree
	if who == "" || who == event.LeadID {
		who = "Atomic"
	}
	if r.Backend != "" {
		who += " (" + r.Backend + ")"
	}
	verb := "wants to use:"
	switch r.Kind {
	case tools.Edit:
		verb = "wants to make this change:"
	case tools.Exec:
		verb = "wants to run:"
	}
	head := th.accent().Render(dot+" Approval needed") + " · " + th.bold().Render(who) + " " + verb
	if m.waiting > 1 {
		head += th.muted().Render(fmt.Sprintf(" (%d more waiting)", m.waiting-1))
	}
	what := th.bold().Render(r.Tool)
	if r.Subject != "" {
		what += " " + r.Subject
	}
	out := []string{fit(head, m.width), fit(indent+what, m.width)}
	body := r.Diff
	if body == "" && r.Kind == tools.Edit {
		body = contentPreview(r.Input)
	}
	if body != "" {
		ls := strings.Split(strings.TrimRight(body, "\n"), "\n")
		extra := 0
		if len(ls) > maxDiffLines {
			ls, extra = ls[:maxDiffLines], len(ls)-maxDiffLines
		}
		for _, l := range ls {
			st := th.muted()
			switch {
			case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
				st = th.fg(th.Success)
			case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
				st = th.fg(th.Danger)
			}
			out = append(out, fit(indent+st.Render(l), m.width))
		}
		if extra > 0 {
			out = append(out, th.muted().Render(fmt.Sprintf("%s… +%d lines", indent, extra)))
		}
	}
	for i, c := range approvalChoices {
		mark := "  "
		label := c.label
		if c.answer == permission.AllowSession && len(r.SessionRules) > 0 {
			// Say exactly what the session will allow from now on.
			label = "Allow " + strings.Join(r.SessionRules, ", ") + " for this session"
		}
		if i == m.approvalSel {
			mark = th.accent().Render(userMarker)
			label = th.bold().Render(label)
		}
		out = append(out, indent+mark+label+th.muted().Render(" ("+c.keys+")"))
	}
	return out
}

// contentPreview shows what a write would put in a file, as added lines.
func contentPreview(input json.RawMessage) string {
	var in struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(input, &in) != nil || in.Content == "" {
		return ""
	}
	var b strings.Builder
	for line := range strings.Lines(in.Content) {
		b.WriteString("+" + line)
	}
	return b.String()
}

// approvalKey answers the prompt: y, a, n (or esc), or arrows and enter.
func (m *Model) approvalKey(s string) {
	switch s {
	case "up", "k":
		m.approvalSel = (m.approvalSel + len(approvalChoices) - 1) % len(approvalChoices)
	case "down", "j", "tab":
		m.approvalSel = (m.approvalSel + 1) % len(approvalChoices)
	case "y", "1":
		m.answer(permission.AllowOnce)
	case "a", "2":
		m.answer(permission.AllowSession)
	case "n", "3", "esc":
		m.answer(permission.Deny)
	case "enter":
		m.answer(approvalChoices[m.approvalSel].answer)
	}
}

// answer replies to the request shown and moves to the next one.
func (m *Model) answer(a permission.Answer) {
	if m.approval == nil || m.cfg.Approvals == nil {
		return
	}
	m.cfg.Approvals.Answer(m.approval.ID, a)
	m.approval = nil
	m.refreshApproval()
}
