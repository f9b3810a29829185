package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/anthropic"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// cacheScenario answers every request; prefixes of 50 tokens are cached,
// so short test prompts exercise the cache.
const cacheScenario = "cache_min_tokens: 50\nrules: [{respond: {text: ok}}]\n"

var (
	cacheSystem = strings.Repeat("You are a careful agent. ", 20)
	cacheTools  = []provider.ToolSpec{
		{Name: "read", Description: "Reads a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "bash", Description: "Runs a command.", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
	}
)

func cachingProvider(t *testing.T, srv *loopback.Server, off bool) provider.Provider {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	p, err := anthropic.New(anthropic.Config{APIKey: "test-key", BaseURL: srv.URL(), Model: "claude-sonnet-4-5",
		HTTPClient: &http.Client{Transport: tr}, NoPromptCache: off})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func user(text string) provider.Message {
	return provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Text: text}}}
}

// toolTurn is an assistant call of read and the user's result.
func toolTurn(id, result string) []provider.Message {
	return []provider.Message{
		{Role: provider.RoleAssistant, Parts: []provider.Part{{Text: "reading"}, {ToolCall: &provider.ToolCall{ID: id, Name: "read", Input: json.RawMessage(`{"path":"a.txt"}`)}}}},
		{Role: provider.RoleUser, Parts: []provider.Part{{ToolResult: &provider.ToolResult{ToolCallID: id, Content: "contents of a.txt " + result}}}},
	}
}

func places(e loopback.LogEntry) []string {
	var out []string
	for _, b := range e.CacheBreakpoints {
		out = append(out, b.Place)
	}
	return out
}

func TestEachRequestMarksTheLastToolTheSystemThePreviousEndAndTheLastMessage(t *testing.T) {
	srv := testkit.Loopback(t, cacheScenario)
	p := cachingProvider(t, srv, false)
	history := []provider.Message{user("read a.txt and b.txt")}
	for turn := range 3 {
		if _, err := p.Stream(context.Background(), provider.Request{System: cacheSystem, Tools: cacheTools, Messages: history}, nil); err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		history = append(history, toolTurn("call-"+string(rune('a'+turn)), strings.Repeat("x", 200))...)
	}
	log := srv.Log()
	want := [][]string{
		{"tools[1]", "system[0]", "messages[0].content[0]"},
		{"tools[1]", "system[0]", "messages[0].content[0]", "messages[2].content[0]"},
		{"tools[1]", "system[0]", "messages[2].content[0]", "messages[4].content[0]"},
	}
	for i, e := range log {
		if got := strings.Join(places(e), " "); got != strings.Join(want[i], " ") {
			t.Errorf("request %d: breakpoints %s, want %s", i+1, got, strings.Join(want[i], " "))
		}
	}
	// Each turn reads exactly the prefix the turn before wrote at its
	// moving end: byte-identical, so the same hash.
	for i := 1; i < len(log); i++ {
		prev := log[i-1].CacheBreakpoints[len(log[i-1].CacheBreakpoints)-1]
		if log[i].CacheReadHash != prev.Hash || log[i].CacheReadTokens != prev.Tokens {
			t.Errorf("request %d read %d tokens of %s, want the %d of %s request %d wrote", i+1,
				log[i].CacheReadTokens, log[i].CacheReadHash, prev.Tokens, prev.Hash, i)
		}
		if log[i].CacheBreakpoints[1].Hash != log[0].CacheBreakpoints[1].Hash {
			t.Errorf("request %d: the tools+system prefix changed", i+1)
		}
	}
}

func TestUsageAndCostCountCacheReadsAndWrites(t *testing.T) {
	srv := testkit.Loopback(t, cacheScenario)
	p := cachingProvider(t, srv, false)
	req := provider.Request{System: cacheSystem, Tools: cacheTools, Messages: []provider.Message{user("hello")}}
	first, err := p.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := srv.Log()
	u1, u2 := first.Usage, second.Usage
	if u1.CacheCreationTokens != int64(log[0].CacheWriteTokens) || u1.CacheCreationTokens == 0 || u1.CacheReadTokens != 0 {
		t.Errorf("first usage %+v, log wrote %d", u1, log[0].CacheWriteTokens)
	}
	if u2.CacheReadTokens != int64(log[1].CacheReadTokens) || u2.CacheReadTokens == 0 || u2.CacheCreationTokens != 0 {
		t.Errorf("second usage %+v, log read %d", u2, log[1].CacheReadTokens)
	}
	// Sonnet: $3 input, $15 output, $0.30 cache read, $3.75 cache write.
	for i, u := range []struct {
		in, out, read, write int64
		cost                 float64
	}{
		{u1.InputTokens, u1.OutputTokens, u1.CacheReadTokens, u1.CacheCreationTokens, u1.CostUSD},
		{u2.InputTokens, u2.OutputTokens, u2.CacheReadTokens, u2.CacheCreationTokens, u2.CostUSD},
	} {
		want := (float64(u.in)*3 + float64(u.out)*15 + float64(u.read)*0.3 + float64(u.write)*3.75) / 1e6
		if diff := u.cost - want; diff > 1e-12 || diff < -1e-12 {
			t.Errorf("request %d cost %g, want %g", i+1, u.cost, want)
		}
	}
	if u2.CostUSD >= u1.CostUSD {
		t.Errorf("the cached request cost %g, not less than the first's %g", u2.CostUSD, u1.CostUSD)
	}
}

func TestSiblingsWithTheSameToolsAndSystemReadWhatTheFirstWrote(t *testing.T) {
	srv := testkit.Loopback(t, cacheScenario)
	p := cachingProvider(t, srv, false)
	for _, task := range []string{"TASK-1 look at a", "TASK-2 look at b, which is different"} {
		if _, err := p.Stream(context.Background(), provider.Request{System: cacheSystem, Tools: cacheTools, Messages: []provider.Message{user(task)}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	log := srv.Log()
	shared := log[0].CacheBreakpoints[1]
	if log[1].CacheReadHash != shared.Hash || log[1].CacheReadTokens != shared.Tokens {
		t.Errorf("second sibling read %d of %s, want the first's tools+system, %d of %s", log[1].CacheReadTokens, log[1].CacheReadHash, shared.Tokens, shared.Hash)
	}
}

func TestNoPromptCacheSendsNoBreakpoints(t *testing.T) {
	srv := testkit.Loopback(t, cacheScenario)
	p := cachingProvider(t, srv, true)
	history := append([]provider.Message{user("go")}, toolTurn("c1", "r")...)
	for range 2 {
		resp, err := p.Stream(context.Background(), provider.Request{System: cacheSystem, Tools: cacheTools, Messages: history}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage.CacheReadTokens != 0 || resp.Usage.CacheCreationTokens != 0 {
			t.Errorf("usage %+v, want no caching", resp.Usage)
		}
	}
	for _, e := range srv.Log() {
		if len(e.CacheBreakpoints) != 0 {
			t.Errorf("breakpoints %v, want none", places(e))
		}
	}
}

func TestAOneOffRequestSendsNoBreakpointsWhileOthersDo(t *testing.T) {
	srv := testkit.Loopback(t, cacheScenario)
	p := cachingProvider(t, srv, false)
	history := append([]provider.Message{user("go")}, toolTurn("c1", "r")...)
	for _, oneOff := range []bool{true, false} {
		if _, err := p.Stream(context.Background(), provider.Request{System: cacheSystem, Tools: cacheTools, Messages: history, OneOff: oneOff}, nil); err != nil {
			t.Fatal(err)
		}
	}
	log := srv.Log()
	if len(log) != 2 {
		t.Fatalf("%d requests, want 2", len(log))
	}
	if len(log[0].CacheBreakpoints) != 0 {
		t.Errorf("the one-off request carried breakpoints %v, want none", places(log[0]))
	}
	if len(log[1].CacheBreakpoints) == 0 {
		t.Error("the next ordinary request carried no breakpoints")
	}
}

func TestBreakpointsSkipBlocksThatCannotCarryOneAndToolsEncodeTheSameMarkedOrNot(t *testing.T) {
	srv := testkit.Loopback(t, cacheScenario)
	p := cachingProvider(t, srv, false)
	// The same tools in another order: the last one differs, and each
	// tool is sent marked in one request and unmarked in the other.
	swapped := []provider.ToolSpec{cacheTools[1], cacheTools[0]}
	for _, tools := range [][]provider.ToolSpec{cacheTools, swapped, cacheTools} {
		msgs := []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "look"}, {Image: &provider.Image{MediaType: "image/png", Data: pngPixel(t)}}}}}
		if _, err := p.Stream(context.Background(), provider.Request{System: cacheSystem, Tools: tools, Messages: msgs}, nil); err != nil {
			t.Fatal(err)
		}
	}
	log := srv.Log()
	if got := strings.Join(places(log[0]), " "); got != "tools[1] system[0] messages[0].content[1]" {
		t.Errorf("breakpoints %s: want the image, the last block, marked", got)
	}
	if log[2].CacheReadHash != log[0].CacheBreakpoints[2].Hash {
		t.Errorf("the same request again read %s, want %s: tool encoding changed between marked and unmarked", log[2].CacheReadHash, log[0].CacheBreakpoints[2].Hash)
	}
}

func pngPixel(t *testing.T) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
