package loopback

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
)

func TestMaxConcurrentCountsOverlaps(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	span := func(from, to int) LogEntry { return LogEntry{Start: at(from), End: at(to)} }
	tests := []struct {
		name    string
		entries []LogEntry
		want    int
	}{
		{"none", nil, 0},
		{"one", []LogEntry{span(0, 10)}, 1},
		{"disjoint", []LogEntry{span(0, 10), span(20, 30)}, 1},
		{"touching is not overlapping", []LogEntry{span(0, 10), span(10, 20)}, 1},
		{"overlapping pair", []LogEntry{span(0, 10), span(5, 20)}, 2},
		{"nested three", []LogEntry{span(0, 100), span(10, 90), span(20, 30), span(40, 50)}, 3},
		{"unsorted input", []LogEntry{span(40, 50), span(0, 100), span(45, 60)}, 3},
	}
	for _, tt := range tests {
		if got := MaxConcurrent(tt.entries); got != tt.want {
			t.Errorf("%s: MaxConcurrent = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestLogEntryHelpers(t *testing.T) {
	e := LogEntry{Messages: []LogMessage{
		{Role: "user", Text: "first"},
		{Role: "assistant", ToolCalls: []LogToolCall{{ID: "a"}, {ID: "b"}}},
		{Role: "tool", ToolResults: []LogToolResult{{ToolCallID: "a", Content: "A"}}},
		{Role: "tool", ToolResults: []LogToolResult{{ToolCallID: "b", Content: "B"}}},
	}}
	if got := e.LastUserText(); got != "first" {
		t.Errorf("LastUserText = %q", got)
	}
	want := []LogToolResult{{ToolCallID: "a", Content: "A"}, {ToolCallID: "b", Content: "B"}}
	if diff := cmp.Diff(want, e.LastToolResults()); diff != "" {
		t.Errorf("LastToolResults (-want +got):\n%s", diff)
	}
	entries := []LogEntry{{Seq: 1, Rule: "a"}, {Seq: 2, Rule: "b"}, {Seq: 3, Rule: "a"}}
	if got := ByRule(entries, "a"); len(got) != 2 || got[0].Seq != 1 || got[1].Seq != 3 {
		t.Errorf("ByRule = %+v", got)
	}
}

func TestLogEndpointServesTheLogAsJSON(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Name: "hi", Respond: &Response{Text: "hi"}}}})
	if _, err := newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hello"))); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL() + "/_log")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	entries, err := ReadLog(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("entries = %+v", entries)
	}
	e := entries[0]
	if e.Seq != 1 || e.API != APIOpenAI || e.Path != "/v1/chat/completions" || e.Rule != "hi" || e.Model != "gpt-x" || e.Status != 200 || e.Stream {
		t.Errorf("entry = %+v", e)
	}
	if e.Start.IsZero() || e.End.Before(e.Start) {
		t.Errorf("times %v .. %v", e.Start, e.End)
	}
	if diff := cmp.Diff([]LogMessage{{Role: "user", Text: "hello"}}, e.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestReadLogReadsJSONLines(t *testing.T) {
	var buf bytes.Buffer
	for i := 1; i <= 2; i++ {
		line, _ := json.Marshal(LogEntry{Seq: i, Rule: "r"})
		buf.Write(append(line, '\n'))
	}
	entries, err := ReadLog(&buf)
	if err != nil || len(entries) != 2 || entries[1].Seq != 2 {
		t.Fatalf("entries %+v, err %v", entries, err)
	}
	if _, err := ReadLog(strings.NewReader("{\"seq\":1}\nnot json\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line error = %v", err)
	}
}

func TestServerWorksAsPlainHandler(t *testing.T) {
	s := New(&Scenario{Rules: []Rule{{Respond: &Response{Text: "via handler"}}}})
	defer s.Close()
	hs := httptest.NewServer(s)
	defer hs.Close()
	body := `{"model":"gpt-x","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	if _, err := out.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.HasPrefix(text, "data: {") || !strings.HasSuffix(text, "data: [DONE]\n\n") || !strings.Contains(text, `"finish_reason":"stop"`) {
		t.Errorf("stream = %s", text)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("content type %q", ct)
	}
}

func TestCloseEndsInFlightHandlers(t *testing.T) {
	s := New(&Scenario{Rules: []Rule{{Respond: &Response{DelayMS: 30_000, Text: "never"}}}})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hi")))
		errc <- err
	}()
	waitInFlight(t, s)
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	if err := <-errc; err == nil {
		t.Error("request to a closed server succeeded")
	}
	if e := s.Log()[0]; e.Outcome != "server closed" {
		t.Errorf("log = %+v", e)
	}
	if n := s.InFlight(); n != 0 {
		t.Errorf("InFlight after Close = %d", n)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Start(); err == nil {
		t.Error("Start after Close succeeded")
	}
}

// waitInFlight waits until a request is under way at s.
func waitInFlight(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.InFlight() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no request arrived")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A client that has seen part of a stream, and may abandon it, must find
// its request in the log already: the entry is made when the request
// arrives and completed when it ends.
func TestLogRecordsARequestWhenItArrivesAndCompletesItWhenItEnds(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Name: "slow", Respond: &Response{ChunkDelayMS: 30_000, Text: "slow stream"}}}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := newAnthropic(s).Messages.NewStreaming(ctx, anthropicParams("claude-x", anthropicUser("hi")))
	if !stream.Next() || stream.Current().Type != "message_start" {
		t.Fatalf("first event: %v", stream.Err())
	}
	log := s.Log()
	if len(log) != 1 {
		t.Fatalf("log while the stream is under way = %+v, want the request in it", log)
	}
	e := log[0]
	if e.Seq != 1 || e.Rule != "slow" || e.Model != "claude-x" || !e.Stream || e.LastUserText() != "hi" {
		t.Errorf("in-flight entry = %+v, want seq 1 of rule slow with the request's model, stream flag and text", e)
	}
	if e.Done() || !e.End.IsZero() || e.Duration() != 0 || e.Outcome != "" {
		t.Errorf("in-flight entry = %+v, want it not done: no end, no duration, no outcome", e)
	}
	if n := s.InFlight(); n != 1 {
		t.Errorf("InFlight = %d, want 1", n)
	}
	cancel()
	stream.Close()
	e = waitForLog(t, s, 1)[0]
	if !e.Done() || e.Outcome != "client disconnected" || e.End.Before(e.Start) {
		t.Errorf("entry after the client left = %+v, want it done as client disconnected", e)
	}
	if n := len(s.Log()); n != 1 {
		t.Errorf("log has %d entries after the request ended, want the same one entry", n)
	}
}

func TestMaxConcurrentCountsARequestInFlightAsOpen(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	entries := []LogEntry{{Start: at(0), End: at(10)}, {Start: at(5)}, {Start: at(20), End: at(30)}}
	if got := MaxConcurrent(entries); got != 2 {
		t.Errorf("MaxConcurrent = %d, want 2 (the open request overlaps both others)", got)
	}
}

// The bench adds up what a run sent the model: each entry carries the
// size of its request's body.
func TestALogEntryCarriesTheSizeOfTheRequestBody(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Name: "hi", Respond: &Response{Text: "hi"}}}})
	body := `{"model":"gpt-x","messages":[{"role":"user","content":"hello there"}]}`
	resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if log := s.Log(); len(log) != 1 || log[0].Bytes != len(body) || log[0].Rule != "hi" {
		t.Errorf("log = %+v, want one entry of %d bytes answered by hi", log, len(body))
	}
}
