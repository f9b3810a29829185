package demo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider/demo"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fast runs the demo twenty times faster than real: pauses keep their
// proportions, so agents still overlap and the background agent still
// finishes after the lead's turn.
const fast = 0.05

// approver is the human at the approval prompt: it allows every request.
type approver struct{ asked atomic.Int32 }

func (a *approver) Ask(context.Context, permission.Request) (permission.Answer, error) {
	a.asked.Add(1)
	return permission.AllowOnce, nil
}

// session is one demo run over the real runtime, recording every event.
type session struct {
	t  *testing.T
	rt *runtime.Runtime

	mu     sync.Mutex
	events []event.Event
}

// start runs the demo at scale in a small Go workspace; asker nil is
// headless (approvals denied by policy).
func start(t *testing.T, scale float64, asker permission.Asker) *session {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"README.md":             "# Widget factory\nMakes widgets.\n",
		"go.mod":                "module example.com/widgets\n\ngo 1.22\n",
		"main.go":               "package main\n\n// TODO: make more widgets\nfunc main() {}\n",
		"widget/widget.go":      "package widget\n",
		"widget/widget_test.go": "package widget\n\nimport \"testing\"\n\nfunc TestWidget(t *testing.T) {}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var opts permission.Options
	if asker != nil {
		opts.Asker = asker
	}
	gate, err := permission.NewGate(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{t: t}
	s.rt = runtime.New(runtime.Config{Provider: &demo.Provider{Scale: scale}, Gate: gate, Workspace: tools.Workspace{Root: dir}})
	s.rt.Bus().Subscribe(func(e event.Event) {
		s.mu.Lock()
		s.events = append(s.events, e)
		s.mu.Unlock()
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.rt.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; s.rt.Close() })
	return s
}

// ask submits prompt and waits for the run's complete.
func (s *session) ask(prompt string) runtime.Outcome {
	s.t.Helper()
	s.rt.Submit(prompt)
	select {
	case out := <-s.rt.Completed():
		// The bus delivers on the recorder's own goroutine: wait until it
		// has everything up to complete.
		if err := s.rt.Bus().Flush(context.Background()); err != nil {
			s.t.Fatal(err)
		}
		return out
	case <-time.After(20 * time.Second):
		s.t.Fatalf("the demo never completed %q", prompt)
	}
	return runtime.Outcome{}
}

// since returns the events recorded from index i on.
func (s *session) since(i int) []event.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]event.Event(nil), s.events[i:]...)
}

func (s *session) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

func indexOf(evs []event.Event, from int, ok func(event.Event) bool) int {
	for i := from; i < len(evs); i++ {
		if ok(evs[i]) {
			return i
		}
	}
	return -1
}

func is(typ event.Type, agent string) func(event.Event) bool {
	return func(e event.Event) bool { return e.Type == typ && e.AgentID == agent }
}

func TestExploreWithAgentsRunsOverlappingAgentsABackgroundWakeUpAndOneApproval(t *testing.T) {
	for _, tc := range []struct {
		name    string
		asker   *approver
		allowed bool
		toolOut string // what the toolchain agent reports of its bash call
	}{
		{"the user approves the command", &approver{}, true, "`go version` printed: go version"},
		{"headless denies the command by policy", nil, false, "bash failed: permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asker permission.Asker
			if tc.asker != nil {
				asker = tc.asker
			}
			s := start(t, fast, asker)
			out := s.ask("explore this project with agents")
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			evs := s.since(0)

			// Four agents: three sync ones that ran at the same time, one in the background.
			type span struct {
				start, end time.Time
				bg         bool
				tools      []string
				result     string
			}
			spans := map[string]*span{}
			var order []string
			for _, e := range evs {
				switch d := e.Data.(type) {
				case event.SubagentStartData:
					spans[e.AgentID] = &span{start: e.Time, bg: d.Background}
					order = append(order, e.AgentID)
				case event.SubagentUpdateData:
					if sp := spans[e.AgentID]; sp != nil && d.CurrentTool != "" &&
						(len(sp.tools) == 0 || sp.tools[len(sp.tools)-1] != d.CurrentTool) {
						sp.tools = append(sp.tools, d.CurrentTool)
					}
				case event.SubagentCompleteData:
					if !d.Success {
						t.Errorf("%s failed: %s", e.AgentID, d.Error)
					}
					spans[e.AgentID].end, spans[e.AgentID].result = e.Time, d.Result
				}
			}
			if len(order) != 4 {
				t.Fatalf("want 4 agents, got %v", order)
			}
			var latestStart, earliestEnd time.Time
			syncAgents := 0
			for _, id := range order {
				sp := spans[id]
				if sp.end.IsZero() {
					t.Fatalf("%s never completed", id)
				}
				if len(sp.tools) < 3 {
					t.Errorf("%s: current tool changed %d times (%q), want at least twice", id, len(sp.tools)-1, sp.tools)
				}
				if sp.bg {
					continue
				}
				syncAgents++
				if sp.start.After(latestStart) {
					latestStart = sp.start
				}
				if earliestEnd.IsZero() || sp.end.Before(earliestEnd) {
					earliestEnd = sp.end
				}
			}
			if syncAgents != 3 {
				t.Fatalf("want 3 sync agents, got %d", syncAgents)
			}
			if !latestStart.Before(earliestEnd) {
				t.Errorf("the three agents did not run at the same time: the last started at %v, the first ended at %v", latestStart, earliestEnd)
			}

			// The background agent finishes after the lead's turn and wakes it.
			bg := order[3]
			if !spans[bg].bg {
				t.Fatalf("the fourth agent %s is not in the background", bg)
			}
			firstEnd := indexOf(evs, 0, is(event.TurnEnd, event.LeadID))
			bgDone := indexOf(evs, 0, func(e event.Event) bool { return e.Type == event.SubagentComplete && e.AgentID == bg })
			if firstEnd < 0 || bgDone < firstEnd {
				t.Fatalf("the background agent completed (event %d) before the lead's first turn ended (event %d)", bgDone, firstEnd)
			}
			wake := indexOf(evs, bgDone, is(event.MessageComplete, event.LeadID))
			if wake < 0 || indexOf(evs, wake, is(event.TurnEnd, event.LeadID)) < 0 {
				t.Fatal("no lead turn followed the background agent's completion")
			}
			if text := evs[wake].Data.(event.MessageCompleteData).Text; !strings.Contains(text, bg) || !strings.Contains(text, "woke me up") {
				t.Errorf("the wake-up answer does not summarise %s:\n%s", bg, text)
			}
			if last := evs[len(evs)-1]; last.Type != event.Complete {
				t.Errorf("the run ended with %s, want complete", last.Type)
			}

			// Exactly one approval, answered as the case says.
			var asked []event.PermissionRequestedData
			var resolved []event.PermissionResolvedData
			for _, e := range evs {
				switch d := e.Data.(type) {
				case event.PermissionRequestedData:
					asked = append(asked, d)
				case event.PermissionResolvedData:
					resolved = append(resolved, d)
				}
			}
			if len(asked) != 1 || asked[0].Tool != "bash" || asked[0].Subject != "go version" {
				t.Fatalf("want one approval for bash go version, got %+v", asked)
			}
			if len(resolved) != 1 || resolved[0].Allowed != tc.allowed {
				t.Errorf("approval resolved %+v, want allowed=%v", resolved, tc.allowed)
			}
			if tc.asker != nil && tc.asker.asked.Load() != 1 {
				t.Errorf("the user was asked %d times", tc.asker.asked.Load())
			}
			var toolchain string
			for _, sp := range spans {
				if strings.Contains(sp.result, "go.mod begins") {
					toolchain = sp.result
				}
			}
			if !strings.Contains(toolchain, tc.toolOut) {
				t.Errorf("the toolchain agent's report lacks %q:\n%s", tc.toolOut, toolchain)
			}
			for _, want := range []string{"# Widget factory", "`**/*.go`: 3", "TODO|FIXME`: 1 matching line"} {
				if !strings.Contains(out.Result+lastLeadTexts(evs), want) {
					t.Errorf("the lead's answers lack the agents' real finding %q", want)
				}
			}
		})
	}
}

// lastLeadTexts joins every text the lead answered.
func lastLeadTexts(evs []event.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if d, ok := e.Data.(event.MessageCompleteData); ok && e.AgentID == event.LeadID {
			b.WriteString(d.Text + "\n")
		}
	}
	return b.String()
}

func TestShowMeATeamExchangesMessagesBothWaysAndShutsTheTeammateDown(t *testing.T) {
	s := start(t, fast, nil)
	out := s.ask("show me a team")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	evs := s.since(0)
	var toScout, fromScout []string
	var statuses []string
	for _, e := range evs {
		switch d := e.Data.(type) {
		case event.TeamMessageData:
			switch {
			case d.From == "lead" && d.To == "scout":
				toScout = append(toScout, d.Content)
			case d.From == "scout" && d.To == "lead":
				fromScout = append(fromScout, d.Content)
			}
		case event.TeammateStatusData:
			if d.Name == "scout" {
				statuses = append(statuses, d.Status)
			}
		}
	}
	if len(toScout) != 1 || len(fromScout) != 2 {
		t.Fatalf("want 1 message to scout and 2 back, got %q and %q", toScout, fromScout)
	}
	if !strings.Contains(fromScout[0], "# Widget factory") || !strings.Contains(fromScout[1], "3 source files") {
		t.Errorf("scout's reports do not carry its real findings: %q", fromScout)
	}
	if len(statuses) == 0 || statuses[len(statuses)-1] != "shutdown" {
		t.Errorf("scout's statuses %v, want it to end shut down", statuses)
	}
	if !strings.Contains(out.Result, "# Widget factory") || !strings.Contains(out.Result, "demo model") {
		t.Errorf("the lead's final answer does not sum up the team:\n%s", out.Result)
	}
	if n := indexOf(evs, 0, func(e event.Event) bool { return e.Type == event.PermissionRequested }); n >= 0 {
		t.Errorf("the team tour asked for approval: %+v", evs[n])
	}
}

func TestAnUnknownPromptGetsTheMenuOfWhatToTry(t *testing.T) {
	for _, prompt := range []string{"hello", "write me a poem", "what can you do?"} {
		t.Run(prompt, func(t *testing.T) {
			s := start(t, fast, nil)
			out := s.ask(prompt)
			for _, want := range []string{demo.Banner, "`explore this project with agents`", "`show me a team`", "`what is in this folder?`"} {
				if !strings.Contains(out.Result, want) {
					t.Errorf("the menu lacks %q:\n%s", want, out.Result)
				}
			}
			if i := indexOf(s.since(0), 0, func(e event.Event) bool { return e.Type == event.ToolStart }); i >= 0 {
				t.Errorf("the menu made a tool call")
			}
		})
	}
}

func TestWhatIsInThisFolderLooksAroundForReal(t *testing.T) {
	s := start(t, fast, nil)
	out := s.ask("what is in this folder?")
	for _, want := range []string{"# Widget factory", "README.md", "main.go", "demo model"} {
		if !strings.Contains(out.Result, want) {
			t.Errorf("answer lacks %q:\n%s", want, out.Result)
		}
	}
}

// Each prompt of one session gets the answer of its own script, whatever
// the history holds before it.
func TestLaterPromptsInOneSessionAnswerTheLatestPrompt(t *testing.T) {
	s := start(t, fast, &approver{})
	steps := []struct {
		prompt string
		want   string
		agents int // sub-agents started by this prompt
	}{
		{"hello", "`show me a team`", 0},
		{"explore this project with agents", "woke me up", 4},
		{"show me a team", "That was a team", 0},
		{"what is in this folder?", "# Widget factory", 0},
		{"thanks!", "I only know a few scripts", 0},
		{"explore this project with agents", "woke me up", 4},
	}
	for _, st := range steps {
		from := s.count()
		out := s.ask(st.prompt)
		if out.Err != nil {
			t.Fatalf("%q: %v", st.prompt, out.Err)
		}
		if !strings.Contains(out.Result, st.want) {
			t.Errorf("%q: answer lacks %q:\n%s", st.prompt, st.want, out.Result)
		}
		started := 0
		for _, e := range s.since(from) {
			if e.Type == event.SubagentStart {
				started++
			}
		}
		if started != st.agents {
			t.Errorf("%q started %d sub-agents, want %d", st.prompt, started, st.agents)
		}
	}
}

// Pauses honour cancellation: at the real pace an interrupt ends the tour
// at once instead of after its ten seconds.
func TestAnInterruptStopsTheRealPacedDemoAtOnce(t *testing.T) {
	s := start(t, 1, nil)
	s.rt.Submit("explore this project with agents")
	deadline := time.Now().Add(10 * time.Second)
	for indexOf(s.since(0), 0, func(e event.Event) bool {
		d, ok := e.Data.(event.SubagentUpdateData)
		return ok && d.CurrentTool != ""
	}) < 0 {
		if time.Now().After(deadline) {
			t.Fatal("no agent started a tool")
		}
		time.Sleep(10 * time.Millisecond)
	}
	began := time.Now()
	s.rt.Interrupt("test")
	select {
	case out := <-s.rt.Completed():
		if took := time.Since(began); took > time.Second {
			t.Errorf("the interrupted demo took %s to settle", took)
		}
		if out.Err == nil {
			t.Error("the interrupted run reports no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the interrupted demo never settled")
	}
}
