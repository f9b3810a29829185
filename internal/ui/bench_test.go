package ui

import (
	"fmt"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

// fiftyAgents is a live tree of 50 agents in mixed states.
func fiftyAgents() *testTree {
	var evs []event.Event
	for i := range 50 {
		call, id := fmt.Sprintf("c%d", i), fmt.Sprintf("explore-%d", i)
		mode := ""
		if i%3 == 0 {
			mode = "background"
		}
		evs = append(evs, taskStart(at(0), call, "explore", fmt.Sprintf("Look at package %d", i), mode))
		evs = append(evs, subStart(at(0), id, call, "explore", fmt.Sprintf("Look at package %d", i), mode != ""))
		evs = append(evs, subUpdate(at(1), id, call, fmt.Sprintf(`grep "func.*" pkg%d/`, i), i%7))
		if i%4 == 1 {
			evs = append(evs, subDone(at(float64(i)), id, call, 3, "Found it.\nDetails follow."))
		}
	}
	return stateOf(evs...)
}

// BenchmarkTree50Agents renders one frame of a 50-agent tree (budget: well
// under 1 ms).
func BenchmarkTree50Agents(b *testing.B) {
	st := fiftyAgents()
	for _, expanded := range []bool{false, true} {
		b.Run(fmt.Sprintf("expanded=%v", expanded), func(b *testing.B) {
			v := treeView{Now: at(30), Expanded: expanded, Width: 120, Theme: DefaultTheme()}
			for b.Loop() {
				renderAgentTree(&st.View, v)
			}
		})
	}
}

// BenchmarkFrame500Messages renders a frame of a 500-message transcript
// while the newest message streams (budget: under 5 ms): on the alternate
// screen the window of it that fits, inline the live region only (the
// finished messages are in the scrollback).
func BenchmarkFrame500Messages(b *testing.B) {
	for _, alt := range []bool{true, false} {
		b.Run(fmt.Sprintf("altscreen=%v", alt), func(b *testing.B) {
			m := New(Config{Backend: &fakeBackend{}, Now: (&clock{now: t0}).Now, AltScreen: alt})
			m.Update(sizeMsg(120, 40))
			for i := range 250 {
				m.tr.add(&userEntry{text: fmt.Sprintf("Question %d: what does package %d do?", i, i)})
				m.tr.add(&assistantEntry{text: fmt.Sprintf("Package **%d** handles `things`.\n\n- one\n- two\n\n```go\nfunc F%d() {}\n```", i, i)})
			}
			feedEvents(m, leadText(at(0), "Agents:"), taskStart(at(0), "c1", "explore", "Live one", ""))
			m.Render() // warm the caches of finished messages
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				text := "more streamed words "
				if i%40 == 39 {
					text = "the end of a paragraph.\n\n" // paragraphs of ~40 deltas, as models write
				}
				feedEvents(m, event.Event{Type: event.MessageDelta, AgentID: event.LeadID, Data: event.MessageDeltaData{Text: text}})
				m.Render()
			}
		})
	}
}

// BenchmarkStartToFirstFrame measures model construction and the first
// frame (budget: under 100 ms).
func BenchmarkStartToFirstFrame(b *testing.B) {
	for b.Loop() {
		m := New(Config{Backend: &fakeBackend{}, Welcome: []string{"Atomic · test-model"}})
		m.Update(sizeMsg(120, 40))
		m.View()
	}
}
