// Package lifecycletest draws random runs for property tests of the
// reducer and of the views that read it: trees of sync and background
// agents up to depth 4 under the lead, with background shells under any of
// them, failures, cascading cancels and shell exits, and a scheduler that
// hands their events out in random orders that keep only what causality
// does.
package lifecycletest

import (
	"fmt"

	"github.com/atomic-agent/atomic/internal/event"
	"pgregory.net/rapid"
)

// Outcomes of a node. A shell's: exit 0, a non-zero exit, stopped
// (kill_shell, or its agent's cancel or end).
const (
	Success = iota
	Failure
	Cancelled
)

// Node is one agent or background shell of a random tree: who started
// it, how, and how it ends.
type Node struct {
	ID, Call, Parent string
	Depth            int
	Background       bool
	Shell            bool
	// Outcome: Success, Failure or Cancelled. A cancel of an agent
	// cascades: every agent below ends cancelled and every shell below
	// is stopped.
	Outcome int
	// Pre are its events up to its end, End its ending events.
	Pre, End []event.Event
	Children []int
}

// DrawTree draws up to 12 agents under the lead, at most 4 levels deep,
// each sync or background, and up to 6 background shells, each under the
// lead or any agent.
func DrawTree(t *rapid.T) []Node {
	n := rapid.IntRange(1, 12).Draw(t, "agents")
	shells := rapid.IntRange(0, 6).Draw(t, "shells")
	nodes := make([]Node, 0, n+shells)
	for i := range n + shells {
		nd := Node{ID: fmt.Sprintf("agent-%d", i), Call: fmt.Sprintf("call-%d", i), Parent: event.LeadID, Depth: 1}
		if i >= n {
			nd.ID, nd.Shell, nd.Background = fmt.Sprintf("shell-%d", i-n+1), true, true
		}
		if i > 0 {
			if p := rapid.IntRange(-1, min(i, n)-1).Draw(t, "parent"); p >= 0 && nodes[p].Depth < 4 {
				nd.Parent, nd.Depth = nodes[p].ID, nodes[p].Depth+1
				nodes[p].Children = append(nodes[p].Children, i)
			}
		}
		if !nd.Shell {
			nd.Background = rapid.Bool().Draw(t, "bg")
		}
		nd.Outcome = rapid.IntRange(Success, Cancelled).Draw(t, "outcome")
		nodes = append(nodes, nd)
	}
	// A cancel stops the subtree: parents come before their children.
	for i := range nodes {
		for _, c := range nodes[i].Children {
			if nodes[i].Outcome == Cancelled {
				nodes[c].Outcome = Cancelled
			}
		}
	}
	for i := range nodes {
		if nodes[i].Shell {
			nodes[i].Pre, nodes[i].End = shellEvents(t, nodes[i])
		} else {
			nodes[i].Pre, nodes[i].End = agentEvents(t, nodes[i])
		}
	}
	return nodes
}

// agentEvents is nd's own sequence: its task call (emitted by its parent),
// its start and progress, turn ends while it has children, then its end
// (subagent.complete, and a sync call's return).
func agentEvents(t *rapid.T, nd Node) (pre, end []event.Event) {
	mode := "sync"
	if nd.Background {
		mode = "background"
	}
	in := fmt.Sprintf(`{"description":"task %s","prompt":"do it","mode":%q}`, nd.ID, mode)
	start := event.Event{Type: event.ToolStart, AgentID: nd.Parent, ToolCallID: nd.Call,
		Data: event.ToolStartData{Name: "task", Input: []byte(in), SubagentID: nd.ID, SubagentSessionID: "s/" + nd.ID}}
	sub := func(typ event.Type, d any) event.Event {
		return event.Event{Type: typ, AgentID: nd.ID, ParentAgentID: nd.Parent, ToolCallID: nd.Call, Data: d}
	}
	pre = []event.Event{start, sub(event.SubagentStart, event.SubagentStartData{AgentType: "general-purpose", Background: nd.Background})}
	for range rapid.IntRange(0, 3).Draw(t, "turns") {
		pre = append(pre, sub(event.SubagentUpdate, event.SubagentUpdateData{CurrentTool: "read"}))
		if len(nd.Children) > 0 && rapid.Bool().Draw(t, "idle") {
			pre = append(pre, sub(event.SubagentUpdate, event.SubagentUpdateData{Idle: true}))
		}
	}
	d := event.SubagentCompleteData{Success: nd.Outcome == Success, Cancelled: nd.Outcome == Cancelled, Result: "result of " + nd.ID}
	tc := event.ToolCompleteData{Name: "task", Success: nd.Outcome == Success, Cancelled: nd.Outcome == Cancelled, Result: d.Result}
	if nd.Outcome == Failure {
		d.Error, tc.Error = "failed", "failed"
	}
	if nd.Background {
		tc = event.ToolCompleteData{Name: "task", Success: true, Result: "started " + nd.ID}
		// The spawn acknowledgement comes once the spawn has returned.
		pre = append(pre[:2], append([]event.Event{{Type: event.ToolComplete, AgentID: nd.Parent, ToolCallID: nd.Call, Data: tc}}, pre[2:]...)...)
		return pre, []event.Event{sub(event.SubagentComplete, d)}
	}
	ret := event.Event{Type: event.ToolComplete, AgentID: nd.Parent, ToolCallID: nd.Call, Data: tc}
	if rapid.Bool().Draw(t, "returnFirst") {
		return pre, []event.Event{ret, sub(event.SubagentComplete, d)}
	}
	return pre, []event.Event{sub(event.SubagentComplete, d), ret}
}

// shellEvents is a background shell's sequence as tools.Shells emits it:
// shell.start (its starter's bash call), output lines, then shell.end: an
// exit 0, a non-zero exit, or a stop (kill_shell, or its agent's cancel).
func shellEvents(t *rapid.T, nd Node) (pre, end []event.Event) {
	sh := func(typ event.Type, d any) event.Event {
		return event.Event{Type: typ, AgentID: nd.ID, ParentAgentID: nd.Parent, Data: d}
	}
	start := sh(event.ShellStart, event.ShellStartData{Command: "make " + nd.ID})
	start.ToolCallID = nd.Call
	pre = []event.Event{start}
	for k := range rapid.IntRange(0, 2).Draw(t, "lines") {
		pre = append(pre, sh(event.ShellOutput, event.ShellOutputData{Line: fmt.Sprintf("line %d", k)}))
	}
	d := event.ShellEndData{Tail: "last words\n"}
	switch nd.Outcome {
	case Failure:
		d.ExitCode = rapid.IntRange(1, 255).Draw(t, "exit")
	case Cancelled:
		d.ExitCode, d.Interrupted = -1, true
		d.Reason = rapid.SampledFrom([]string{"killed by kill_shell", "its agent ended", "stopped"}).Draw(t, "why")
	}
	return pre, []event.Event{sh(event.ShellEnd, d)}
}

// Schedule hands out a tree's events in a random order that keeps only
// what causality does: a child's first event comes once its parent runs,
// and an agent ends only once it has started all its children.
type Schedule struct {
	Nodes []Node
	next  []int
	byID  map[string]int
}

// NewSchedule is the schedule of nodes, nothing handed out yet.
func NewSchedule(nodes []Node) *Schedule {
	s := &Schedule{Nodes: nodes, next: make([]int, len(nodes)), byID: map[string]int{}}
	for i, nd := range nodes {
		s.byID[nd.ID] = i
	}
	return s
}

// started reports whether node i runs: an agent's subagent.start, a
// shell's shell.start has been handed out.
func (s *Schedule) started(i int) bool {
	if s.Nodes[i].Shell {
		return s.next[i] >= 1
	}
	return s.next[i] >= 2
}

// eligible reports whether node i's next event may come now.
func (s *Schedule) eligible(i int) bool {
	nd := s.Nodes[i]
	if s.next[i] >= len(nd.Pre)+len(nd.End) {
		return false
	}
	if s.next[i] == 0 && nd.Parent != event.LeadID && !s.started(s.byID[nd.Parent]) {
		return false // its task call or shell comes from its parent, once the parent runs
	}
	if s.next[i] >= len(nd.Pre) {
		for _, c := range nd.Children {
			if !s.started(c) {
				return false
			}
		}
	}
	return true
}

// Next draws the next event, false once every event was handed out.
func (s *Schedule) Next(t *rapid.T) (event.Event, bool) {
	var live []int
	for i := range s.Nodes {
		if s.eligible(i) {
			live = append(live, i)
		}
	}
	if len(live) == 0 {
		return event.Event{}, false
	}
	i := rapid.SampledFrom(live).Draw(t, "pick")
	nd := s.Nodes[i]
	var e event.Event
	if s.next[i] < len(nd.Pre) {
		e = nd.Pre[s.next[i]]
	} else {
		e = nd.End[s.next[i]-len(nd.Pre)]
	}
	s.next[i]++
	return e, true
}

// LeadCallsOut reports whether everything the lead starts itself (agents
// and shells) has started: its turn can end.
func (s *Schedule) LeadCallsOut() bool {
	for i, nd := range s.Nodes {
		if nd.Parent == event.LeadID && !s.started(i) {
			return false
		}
	}
	return true
}
