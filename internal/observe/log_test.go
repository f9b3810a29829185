package observe

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
)

func TestStateDirFollowsXDGStateHomeElseHome(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{"XDG_STATE_HOME wins", map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/h"}, "/x/state/atomic", false},
		{"HOME's .local/state otherwise", map[string]string{"HOME": "/h"}, "/h/.local/state/atomic", false},
		{"a relative XDG_STATE_HOME is refused", map[string]string{"XDG_STATE_HOME": "rel"}, "", true},
		{"neither is an error", map[string]string{}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := StateDir(func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("StateDir = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// logLine is the shape of the lifecycle log's lines.
type logLine struct {
	Time       time.Time `json:"time"`
	Level      string    `json:"level"`
	Msg        string    `json:"msg"`
	SessionID  string    `json:"session_id"`
	AgentID    string    `json:"agent_id"`
	ParentID   string    `json:"parent_id"`
	Kind       string    `json:"kind"`
	Type       string    `json:"type"`
	Backend    string    `json:"backend"`
	Status     string    `json:"status"`
	DurationMS *int64    `json:"duration_ms"`
	ToolUses   int       `json:"tool_uses"`
	Input      int64     `json:"input_tokens"`
	Output     int64     `json:"output_tokens"`
	Cost       float64   `json:"cost_usd"`
	Error      string    `json:"error"`
}

func readLog(t *testing.T, path string) []logLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func TestLifecycleLogHasEveryAgentsStartAndEndAsJSONLinesInTheStateDir(t *testing.T) {
	state := t.TempDir()
	path, err := LogPath(func(k string) string { return map[string]string{"XDG_STATE_HOME": state}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(state, "atomic", "atomic.log"); path != want {
		t.Fatalf("log path %q, want %q", path, want)
	}
	f, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bus.New()
	obs := Watch(b, func() time.Time { return at(9) }, nil, NewLogger(f))
	u := event.Usage{InputTokens: 10, OutputTokens: 5, CostUSD: 0.25}
	for _, e := range flat(leadStart(0), spawn(1, "lead", "explore-1", "c1", "explore", "native", false),
		spawn(1, "lead", "general-1", "c2", "general", "native", false),
		finish(3, "lead", "explore-1", "c1", true, 4, u), finish(3.5, "lead", "general-1", "c2", false, 1, event.Usage{}),
		leadComplete(4, false)) {
		b.Emit(e)
	}
	if err := obs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLog(t, path)
	type key struct{ msg, agent string }
	got := map[key]logLine{}
	for _, l := range lines {
		got[key{l.Msg, l.AgentID}] = l
		if l.SessionID != sid {
			t.Errorf("line %+v: session %q, want %q", l, l.SessionID, sid)
		}
	}
	if len(lines) != 6 || len(got) != 6 {
		t.Fatalf("want a start and an end line for each of 3 agents, got %d lines: %+v", len(lines), lines)
	}
	e1 := got[key{MsgEnd, "explore-1"}]
	if e1.Level != "INFO" || e1.Status != "completed" || e1.DurationMS == nil || *e1.DurationMS != 2000 || e1.ToolUses != 4 ||
		e1.Input != 10 || e1.Output != 5 || e1.Cost != 0.25 || e1.Type != "Explore" || e1.Backend != "native" || e1.ParentID != "lead" || !e1.Time.Equal(at(3)) {
		t.Errorf("explore-1's end line: %+v", e1)
	}
	g1 := got[key{MsgEnd, "general-1"}]
	if g1.Level != "ERROR" || g1.Status != "error" || g1.Error != "boom" || *g1.DurationMS != 2500 {
		t.Errorf("general-1's end line: %+v", g1)
	}
	if s := got[key{MsgStart, "general-1"}]; !s.Time.Equal(at(1)) || s.Kind != KindSubagent || s.DurationMS != nil {
		t.Errorf("general-1's start line: %+v", s)
	}
	if l := got[key{MsgEnd, "lead"}]; l.Kind != KindLead || l.Status != "completed" || *l.DurationMS != 9000 || l.ParentID != "" {
		t.Errorf("the lead's end line: %+v", l)
	}
	if lines[len(lines)-1].AgentID != "lead" {
		t.Errorf("the lead's end is not the last line: %+v", lines[len(lines)-1])
	}
}

// gate is a sink that blocks until released.
type gate struct {
	release chan struct{}
	n       int
}

func (g *gate) Started(Span) error { <-g.release; g.n++; return nil }
func (g *gate) Ended(Span) error   { <-g.release; g.n++; return nil }

func TestAStalledSinkNeverHoldsTheBusUp(t *testing.T) {
	b := bus.New()
	g := &gate{release: make(chan struct{})}
	obs := Watch(b, func() time.Time { return at(100) }, nil, g)
	emitted := make(chan struct{})
	go func() {
		defer close(emitted)
		b.Emit(leadStart(0))
		for i := range 200 {
			id, call := "a-"+string(rune('a'+i%26))+string(rune('a'+i/26)), "c"+string(rune(i))
			for _, e := range flat(spawn(1, "lead", id, call, "explore", "native", false), finish(2, "lead", id, call, true, 0, event.Usage{})) {
				b.Emit(e)
			}
		}
	}()
	select {
	case <-emitted:
	case <-time.After(10 * time.Second):
		t.Fatal("the bus waited for a stalled sink")
	}
	close(g.release)
	if err := obs.Close(); err != nil {
		t.Fatal(err)
	}
	if g.n != 2*201 {
		t.Errorf("the sink saw %d starts and ends once released, want %d: the queue lost some", g.n, 2*201)
	}
}

func TestALogThatCannotBeWrittenIsOneErrorNamingItAndTheRunGoesOn(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "atomic")
	if err := os.WriteFile(blocker, []byte("a file where the directory should be"), 0o600); err != nil {
		t.Fatal(err)
	}
	lf := NewLogFile(filepath.Join(blocker, LogName))
	b := bus.New()
	obs := Watch(b, func() time.Time { return at(3) }, nil, NewLogger(lf))
	for _, e := range flat(leadStart(0), spawn(1, "lead", "explore-1", "c1", "explore", "native", false)) {
		b.Emit(e)
	}
	err := obs.Close()
	if err == nil || !strings.Contains(err.Error(), blocker) || strings.Count(err.Error(), "\n") > 0 {
		t.Errorf("Close: %v, want one line naming %s", err, blocker)
	}
	if err := lf.Close(); err != nil {
		t.Errorf("closing a log never opened: %v", err)
	}
}

func TestAUsersInterruptIsLoggedAsInterruptedAtInfoNotAsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "atomic.log")
	f, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bus.New()
	obs := Watch(b, func() time.Time { return at(9) }, nil, NewLogger(f))
	for _, e := range flat(leadStart(0), spawn(1, "lead", "explore-1", "c1", "explore", "native", false),
		ev(event.Interrupt, 2, "lead", "", "", event.InterruptData{Reason: "the user pressed Esc"}),
		ev(event.Complete, 3, "lead", "", "", event.CompleteData{IsError: true, Error: "interrupted: the user pressed Esc", Interrupted: true})) {
		b.Emit(e)
	}
	if err := obs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ends := 0
	for _, l := range readLog(t, path) {
		if l.Msg != MsgEnd {
			continue
		}
		ends++
		if l.Level != "INFO" || l.Status != "interrupted" {
			t.Errorf("%s's end line is %s %q, want INFO interrupted: %+v", l.AgentID, l.Level, l.Status, l)
		}
	}
	if ends != 2 {
		t.Errorf("want the end lines of the lead and its sub-agent, got %d", ends)
	}
}
