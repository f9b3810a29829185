package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/checkpoint"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/spawn"
)

// t0 is the fixed start of every scripted scenario.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// at is t0 plus s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// clock is an injectable clock tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// fakeBackend records what the UI asked of the run.
type fakeBackend struct {
	mu         sync.Mutex
	submitted  []string
	interrupts []string
	turnStops  []string
	// cliLead: the lead's interrupt cannot keep background work.
	cliLead    bool
	resets     []string
	switched   []string
	cancelled  []string
	model      string
	cancelErr  error
	resumed    []string
	mcp        []mcp.Status
	compacted  []string
	compactErr error
	// bus is the bus the test feeds the model through (nil: none).
	bus *bus.Bus
	// provider, models and listErr answer ProviderName and ListModels
	// (commands_more_test.go).
	provider string
	models   []string
	listErr  error
	// checkpoints answers Checkpoints; rewinds records Rewind's requests,
	// answered with rewound and rewindErr.
	checkpoints []checkpoint.Summary
	rewinds     []runtime.RewindRequest
	rewound     runtime.Rewound
	rewindErr   error
}

func (b *fakeBackend) Checkpoints() []checkpoint.Summary { return b.checkpoints }

func (b *fakeBackend) Rewind(req runtime.RewindRequest, done func(runtime.Rewound, error)) {
	b.mu.Lock()
	b.rewinds = append(b.rewinds, req)
	res, err := b.rewound, b.rewindErr
	b.mu.Unlock()
	done(res, err)
}

func (b *fakeBackend) MCP() []mcp.Status { return b.mcp }

func (b *fakeBackend) Compact(instr string, done func(error)) {
	b.mu.Lock()
	b.compacted = append(b.compacted, instr)
	err := b.compactErr
	b.mu.Unlock()
	done(err)
}

func (b *fakeBackend) Lead() (lifecycle.Record, bool) {
	if b.bus == nil {
		return lifecycle.Record{}, false
	}
	return b.bus.Lead()
}

func (b *fakeBackend) Submit(p string) {
	b.mu.Lock()
	b.submitted = append(b.submitted, p)
	b.mu.Unlock()
}
func (b *fakeBackend) Interrupt(r string) {
	b.mu.Lock()
	b.interrupts = append(b.interrupts, r)
	b.mu.Unlock()
}
func (b *fakeBackend) InterruptTurn(r string) {
	b.mu.Lock()
	b.turnStops = append(b.turnStops, r)
	b.mu.Unlock()
}
func (b *fakeBackend) KeepsBackground() bool { return !b.cliLead }
func (b *fakeBackend) Reset(r string)        { b.mu.Lock(); b.resets = append(b.resets, r); b.mu.Unlock() }
func (b *fakeBackend) SwitchModel(m string) {
	b.mu.Lock()
	b.switched = append(b.switched, m)
	b.model = m
	b.mu.Unlock()
}
func (b *fakeBackend) Model() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.model == "" {
		return "test-model"
	}
	return b.model
}
func (b *fakeBackend) AgentTypes() []spawn.Type {
	return spawn.NewRegistry(spawn.Type{Name: "reviewer", Description: "Reviews diffs.", Source: ".atomic/agents/reviewer.md"}).All()
}
func (b *fakeBackend) CancelTask(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cancelErr != nil {
		return b.cancelErr
	}
	b.cancelled = append(b.cancelled, id)
	return nil
}

func (b *fakeBackend) ResumeTask(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if id == "unknown-1" {
		return errors.New(`no interrupted task "unknown-1" to resume`)
	}
	b.resumed = append(b.resumed, id)
	return nil
}

// newTestModel returns a model of the given size on a fixed clock.
func newTestModel(t *testing.T, w, h int) (*Model, *fakeBackend, *clock) {
	t.Helper()
	b := &fakeBackend{}
	c := &clock{now: t0}
	m := New(Config{Backend: b, Now: c.Now})
	fedMu.Lock()
	b.bus = feedOf(m).b // the lead's record is the reducer's of what the test feeds
	fedMu.Unlock()
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m, b, c
}

// feedEvents delivers events to the model as one batch.
// feedEvents gives m evs with the tool.start events their counts imply
// (withToolStarts).
func feedEvents(m *Model, evs ...event.Event) {
	fedMu.Lock()
	seen := fedTools[m]
	if seen == nil {
		seen = map[string]int{}
		fedTools[m] = seen
	}
	out := addToolStarts(seen, evs)
	f := feedOf(m)
	fedMu.Unlock()
	m.Update(eventsMsg{Events: f.through(out)})
}

// feedOf is m's bus, made at its first use; fedMu is held.
func feedOf(m *Model) *busFeed {
	f := fedBus[m]
	if f == nil {
		f = &busFeed{b: bus.New()}
		f.b.SubscribeWith(func(e event.Event) { f.out = append(f.out, e) }, bus.Options{Name: "test", Inline: true, Records: true})
		fedBus[m] = f
	}
	return f
}

// busFeed is a test model's bus: the events a test feeds go through its
// reducer, and the model gets them as the TUI's subscription would, each
// followed by the agent.status of every record it changed.
type busFeed struct {
	b   *bus.Bus
	out []event.Event
}

func (f *busFeed) through(evs []event.Event) []event.Event {
	f.out = nil
	for _, e := range evs {
		f.b.Emit(e)
	}
	return f.out
}

var (
	fedMu    sync.Mutex
	fedTools = map[*Model]map[string]int{} // tool.start events fed, by agent
	fedBus   = map[*Model]*busFeed{}       // each model's bus
)

// withToolStarts is evs as a run's stream carries them: a sub-agent's
// subagent.update or subagent.complete saying it made n tool calls comes
// after that many tool.start events of the agent, which are what the
// reducer counts (the fixtures state the count on the update).
func withToolStarts(evs []event.Event) []event.Event { return addToolStarts(map[string]int{}, evs) }

func addToolStarts(seen map[string]int, evs []event.Event) []event.Event {
	var out []event.Event
	for _, e := range evs {
		n, tool := -1, "read"
		switch d := e.Data.(type) {
		case event.SubagentUpdateData:
			n = d.ToolUses
			if d.CurrentTool != "" {
				tool = d.CurrentTool
			}
		case event.SubagentCompleteData:
			n = d.ToolUses
		case event.ToolStartData:
			seen[e.AgentID]++
		}
		for seen[e.AgentID] < n {
			seen[e.AgentID]++
			name, _, _ := strings.Cut(tool, " ")
			out = append(out, event.Event{Type: event.ToolStart, Time: e.Time, AgentID: e.AgentID,
				ToolCallID: fmt.Sprintf("%s/tool-%d", e.AgentID, seen[e.AgentID]), Data: event.ToolStartData{Name: name}})
		}
		out = append(out, e)
	}
	return out
}

// frame is what the terminal shows of the chat, without colour codes or
// trailing blanks: inline, the entries already printed to the scrollback
// (rendered at the current width) above the live region.
func frame(m *Model) string {
	if m.cfg.AltScreen {
		return live(m)
	}
	var lines []string
	rc := m.renderCtx()
	rc.Expanded = false // ctrl+o leaves printed rows as printed
	for _, e := range m.tr.entries[:m.tr.printed] {
		lines = appendChunk(lines, e.lines(rc), len(lines) > 0)
	}
	return strip(append(lines, m.Render()))
}

// live is the frame Bubble Tea redraws, without colour codes or trailing
// blanks: inline, the live region only.
func live(m *Model) string { return strip([]string{m.Render()}) }

func strip(parts []string) string {
	lines := strings.Split(ansi.Strip(strings.Join(parts, "\n")), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// golden compares got with testdata/NAME.golden, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("frame differs from %s (-want +got):\n%s", path, diff)
	}
}

// Event builders, in the shapes the runtime emits.

func ev(typ event.Type, t time.Time, agent, call string, data any) event.Event {
	parent := ""
	if agent != event.LeadID {
		parent = event.LeadID
	}
	return event.Event{Type: typ, Time: t, SessionID: "s", AgentID: agent, ParentAgentID: parent, ToolCallID: call, Data: data}
}

func leadText(t time.Time, text string) event.Event {
	return ev(event.MessageComplete, t, event.LeadID, "", event.MessageCompleteData{Text: text, StopReason: "tool_use"})
}

func taskStart(t time.Time, call, typ, desc, mode string) event.Event {
	in, _ := json.Marshal(map[string]string{"description": desc, "prompt": "Please " + strings.ToLower(desc) + ".", "subagent_type": typ, "mode": mode})
	return ev(event.ToolStart, t, event.LeadID, call, event.ToolStartData{Name: "task", Input: in})
}

func subStart(t time.Time, agent, call, typ, desc string, bg bool) event.Event {
	e := ev(event.SubagentStart, t, agent, call, event.SubagentStartData{AgentType: typ, Description: desc, Prompt: "Please " + strings.ToLower(desc) + ".", Background: bg})
	return e
}

func subUpdate(t time.Time, agent, call, tool string, uses int) event.Event {
	return ev(event.SubagentUpdate, t, agent, call, event.SubagentUpdateData{CurrentTool: tool, ToolUses: uses})
}

func subDone(t time.Time, agent, call string, uses int, result string) event.Event {
	return ev(event.SubagentComplete, t, agent, call, event.SubagentCompleteData{Success: true, Result: result, ToolUses: uses})
}

func subFailed(t time.Time, agent, call string, uses int, msg string) event.Event {
	return ev(event.SubagentComplete, t, agent, call, event.SubagentCompleteData{Error: msg, ToolUses: uses})
}

func taskReturn(t time.Time, call, result string, ok bool) event.Event {
	d := event.ToolCompleteData{Name: "task", Success: ok, Result: result}
	if !ok {
		d.Error, d.Result = result, ""
	}
	return ev(event.ToolComplete, t, event.LeadID, call, d)
}

func interrupt(t time.Time) event.Event {
	return ev(event.Interrupt, t, event.LeadID, "", event.InterruptData{Reason: "the user pressed Esc"})
}

func userAsk(m *Model, text string) {
	m.in.ta.SetValue(text)
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// press sends one key, named as tea.KeyPressMsg.String names it.
func press(m *Model, k string) {
	m.Update(keyMsg(k))
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "alt+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	}
	if len(k) > 5 && k[:5] == "ctrl+" {
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// typeText types s into the model key by key.
func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func sizeMsg(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }
