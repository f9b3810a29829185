package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// statusOf is the frame's last line: the status line.
func statusOf(m *Model) string {
	lines := strings.Split(strings.TrimRight(frame(m), "\n"), "\n")
	return lines[len(lines)-1]
}

func retryEv(t time.Time, agent string, attempt, max int, delay time.Duration, reason string) event.Event {
	return ev(event.Retry, t, agent, "", event.RetryData{Attempt: attempt, MaxAttempts: max, DelayMS: delay.Milliseconds(), Reason: reason})
}

// tickAt moves the clock to t and delivers the clock tick.
func tickAt(m *Model, c *clock, t time.Time) {
	c.Set(t)
	m.Update(tickMsg(t))
}

func TestRetryCountsDownInTheStatusLineUntilTheNextAttempt(t *testing.T) {
	m, _, c := newTestModel(t, 80, 20)
	userAsk(m, "hello")
	if cmd := updateCmd(m, eventsMsg{Events: []event.Event{retryEv(at(0), event.LeadID, 2, 5, 4*time.Second, "529 overloaded")}}); cmd == nil {
		t.Error("no clock tick scheduled for the countdown")
	}
	steps := []struct {
		at   float64
		want string
	}{
		{0, "Retrying in 4s… (attempt 2/5 · 529 overloaded)"},
		{0.5, "Retrying in 4s… (attempt 2/5 · 529 overloaded)"},
		{1.2, "Retrying in 3s… (attempt 2/5 · 529 overloaded)"},
		{3.1, "Retrying in 1s… (attempt 2/5 · 529 overloaded)"},
		{4, ""},
	}
	for _, s := range steps {
		tickAt(m, c, at(s.at))
		got := statusOf(m)
		if s.want == "" {
			if strings.Contains(got, "Retrying") {
				t.Errorf("at %.1fs the next attempt has started but the status line still says %q", s.at, got)
			}
			continue
		}
		if !strings.HasPrefix(got, s.want) {
			t.Errorf("at %.1fs status line = %q, want it to start with %q", s.at, got, s.want)
		}
	}
}

func TestRetryNoticeVanishesWhenTheAnswerComesOrTheTurnEnds(t *testing.T) {
	cases := []struct {
		name string
		next event.Event
	}{
		{"text streams again", ev(event.MessageDelta, at(1), event.LeadID, "", event.MessageDeltaData{Text: "here"})},
		{"the turn ends", ev(event.TurnEnd, at(1), event.LeadID, "", event.TurnEndData{NumTurns: 1})},
		{"the turn fails", ev(event.Error, at(1), event.LeadID, "", event.ErrorData{Message: "gave up after 5 attempts"})},
		{"the user interrupts", interrupt(at(1))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _, _ := newTestModel(t, 80, 20)
			userAsk(m, "hello")
			feedEvents(m,
				ev(event.MessageDelta, at(0), event.LeadID, "", event.MessageDeltaData{Discard: true}),
				retryEv(at(0), event.LeadID, 3, 5, 20*time.Second, "429 rate limited"),
			)
			if got := statusOf(m); !strings.HasPrefix(got, "Retrying in 20s… (attempt 3/5 · 429 rate limited)") {
				t.Fatalf("status line = %q, want the retry countdown", got)
			}
			feedEvents(m, c.next)
			if got := statusOf(m); strings.Contains(got, "Retrying") {
				t.Errorf("status line still shows the retry: %q", got)
			}
		})
	}
}

func TestSubagentRetryIsNamedInTheStatusLineAndTheLeadsComesFirst(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 20)
	feedEvents(m, retryEv(at(0), "explore-1", 2, 5, 2*time.Second, "503 service unavailable"))
	if got := statusOf(m); !strings.HasPrefix(got, "explore-1 retrying in 2s… (attempt 2/5 · 503 service unavailable)") {
		t.Errorf("status line = %q, want the sub-agent's retry named", got)
	}
	feedEvents(m, retryEv(at(0), event.LeadID, 2, 2, 200*time.Millisecond, "connection refused"))
	if got := statusOf(m); !strings.HasPrefix(got, "Retrying in 1s… (attempt 2/2 · connection refused)") {
		t.Errorf("status line = %q, want the lead's retry first", got)
	}
	feedEvents(m, ev(event.ToolStart, at(1), "explore-1", "g1", event.ToolStartData{Name: "grep"}))
	feedEvents(m, ev(event.MessageDelta, at(1), event.LeadID, "", event.MessageDeltaData{Text: "ok"}))
	if got := statusOf(m); strings.Contains(got, "etrying") {
		t.Errorf("both agents moved on but the status line says %q", got)
	}
}

func TestCtrlCQuitHintVanishesWithItsTwoSecondWindow(t *testing.T) {
	m, _, c := newTestModel(t, 80, 20)
	if cmd := updateCmd(m, keyMsg("ctrl+c")); cmd == nil {
		t.Error("no clock tick scheduled to take the hint down")
	}
	if !strings.Contains(frame(m), "Press Ctrl+C again to quit") {
		t.Fatal("no hint after the first ctrl+c")
	}
	tickAt(m, c, at(1.5))
	if !strings.Contains(frame(m), "Press Ctrl+C again to quit") {
		t.Error("the hint went before its 2s window ended")
	}
	tickAt(m, c, at(2.1))
	if strings.Contains(frame(m), "Press Ctrl+C again to quit") {
		t.Error("the hint is still shown after its 2s window, when a ctrl+c no longer quits")
	}
}

func TestClearResetsTheContextFigure(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 20)
	feedEvents(m, ev(event.UsageUpdate, at(0), event.LeadID, "", event.UsageUpdateData{
		Usage: event.Usage{InputTokens: 50_000, OutputTokens: 1000, ContextWindow: 200_000, CostUSD: 0.165},
		Total: event.Usage{InputTokens: 50_000, OutputTokens: 1000, ContextWindow: 200_000, CostUSD: 0.165},
	}))
	if got := statusOf(m); !strings.Contains(got, "ctx 51.0k/200.0k (25%)") {
		t.Fatalf("status line = %q, want the context used", got)
	}
	userAsk(m, "/clear")
	got := statusOf(m)
	if !strings.Contains(got, "ctx 0/200.0k (0%)") {
		t.Errorf("after /clear the status line = %q, want the context back at 0", got)
	}
	if !strings.Contains(got, "$0.1650") {
		t.Errorf("after /clear the status line = %q, want the session's cost kept", got)
	}
	// The next request's usage (after the runtime's reset) counts from the
	// cleared conversation.
	feedEvents(m, ev(event.Reset, at(1), event.LeadID, "", event.ResetData{Reason: "/clear"}))
	feedEvents(m, ev(event.UsageUpdate, at(1), event.LeadID, "", event.UsageUpdateData{
		Usage: event.Usage{InputTokens: 52_000, OutputTokens: 1100, ContextWindow: 200_000, CostUSD: 0.172},
		Total: event.Usage{InputTokens: 52_000, OutputTokens: 1100, ContextWindow: 200_000, CostUSD: 0.172},
	}))
	if got := statusOf(m); !strings.Contains(got, "ctx 2.1k/200.0k (1%)") {
		t.Errorf("status line = %q, want the new conversation's context", got)
	}
}

func TestToolWaitingForApprovalSaysSoNotRunning(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 20)
	feedEvents(m,
		ev(event.ToolStart, at(0), event.LeadID, "b1", event.ToolStartData{Name: "bash", Input: []byte(`{"command":"rm -rf build"}`)}),
		ev(event.PermissionRequested, at(0), event.LeadID, "b1", event.PermissionRequestedData{RequestID: "perm-1", Tool: "bash", Subject: "rm -rf build"}),
	)
	f := frame(m)
	if !strings.Contains(f, "╰ Waiting for approval…") || strings.Contains(f, "Running…") {
		t.Errorf("a tool waiting for approval should say so:\n%s", f)
	}
	feedEvents(m, ev(event.PermissionResolved, at(1), event.LeadID, "b1", event.PermissionResolvedData{RequestID: "perm-1", Allowed: true}))
	f = frame(m)
	if !strings.Contains(f, "╰ Running…") || strings.Contains(f, "Waiting for approval") {
		t.Errorf("an approved tool should show running:\n%s", f)
	}
}
