package native

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// bigFiles is a read tool whose every file holds size bytes of code-like
// text (quotes and newlines included, which the wire escapes).
type bigFiles struct{ size int }

func (bigFiles) Name() string        { return "read" }
func (bigFiles) Description() string { return "Read a file." }
func (bigFiles) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`)
}
func (bigFiles) Kind() tools.Kind { return tools.ReadOnly }
func (b bigFiles) Run(_ context.Context, c tools.Call) (tools.Result, error) {
	var in struct {
		FilePath string `json:"file_path"`
	}
	_ = json.Unmarshal(c.Input, &in)
	line := fmt.Sprintf("fmt.Println(%q) // %s\n", "content of "+in.FilePath, in.FilePath)
	return tools.Result{Content: strings.Repeat(line, b.size/len(line)+1)[:b.size]}, nil
}

// readsScenario: the model reads files f1…fn one after another, then says
// done; a request asking for a summary gets one.
func readsScenario(n int, window string) string {
	var b strings.Builder
	b.WriteString("context_window: " + window + "\nrules:\n")
	b.WriteString(`  - {name: summary, match: {last_user_contains: "Write a summary of the conversation so far"}, respond: {text: "summary: read files so far"}}` + "\n")
	b.WriteString("  - name: work\n    sequence:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "      - {tool_calls: [{name: read, id: r%d, input: {file_path: f%d.go}}]}\n", i, i)
	}
	b.WriteString("      - {text: done}\n")
	return b.String()
}

func readSession(t *testing.T, p provider.Provider, policy backend.ContextPolicy, size int, rec *recorder) *Session {
	set := tools.NewSet()
	set.Add(bigFiles{size: size})
	return New(Config{ID: "lead", Provider: p, Tools: set, Sink: rec, Context: policy, System: "You read files."})
}

// pairsIntact reports whether every tool result answers a call of the
// message just before it and every call is answered in the message after.
func pairsIntact(h []provider.Message) error {
	for i, m := range h {
		calls := map[string]bool{}
		if i > 0 {
			for _, p := range h[i-1].Parts {
				if p.ToolCall != nil {
					calls[p.ToolCall.ID] = true
				}
			}
		}
		for _, p := range m.Parts {
			if p.ToolResult != nil && !calls[p.ToolResult.ToolCallID] {
				return fmt.Errorf("message %d: result of %s without its call before it", i, p.ToolResult.ToolCallID)
			}
		}
		if i+1 == len(h) {
			continue
		}
		answered := map[string]bool{}
		for _, p := range h[i+1].Parts {
			if p.ToolResult != nil {
				answered[p.ToolResult.ToolCallID] = true
			}
		}
		for _, p := range m.Parts {
			if p.ToolCall != nil && !answered[p.ToolCall.ID] {
				return fmt.Errorf("message %d: call %s without its result after it", i, p.ToolCall.ID)
			}
		}
	}
	return nil
}

func compactions(rec *recorder) []event.ContextCompactData {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []event.ContextCompactData
	for _, e := range rec.evs {
		if d, ok := event.Payload[event.ContextCompactData](e.Data); ok && e.Type == event.ContextCompact {
			out = append(out, d)
		}
	}
	return out
}

func TestAnAgentReadingSeveralWindowsOfFilesCompactsAtItsThresholdAndNeverSendsMoreThanItsWindow(t *testing.T) {
	p, srv := testkit.Model(t, readsScenario(12, "4000"))
	var rec recorder
	s := readSession(t, p, backend.ContextPolicy{Window: 4000}, 3000, &rec)
	res, err := s.Run(context.Background(), "read them all")
	if err != nil || res.Text != "done" {
		t.Fatalf("run: %+v, %v; want done", res, err)
	}
	log := srv.Log()
	if max := loopback.MaxInputTokens(log); max > 4000 {
		t.Errorf("a request carried %d tokens, over the 4000-token window", max)
	}
	summaries := 0
	for _, e := range log {
		if e.Status != 200 {
			t.Errorf("request %d refused: %d %s", e.Seq, e.Status, e.Outcome)
		}
		if e.Rule == "summary" {
			summaries++
			if len(e.Tools) != 0 {
				t.Errorf("summary request %d offered tools %v", e.Seq, e.Tools)
			}
			if e.System != "You read files." {
				t.Errorf("summary request %d system %q, want the agent's own", e.Seq, e.System)
			}
		} else if len(e.Tools) != 1 {
			t.Errorf("work request %d offered tools %v", e.Seq, e.Tools)
		}
	}
	cs := compactions(&rec)
	if summaries == 0 || len(cs) != summaries {
		t.Fatalf("%d summary requests and %d context.compact events; want as many, at least one", summaries, len(cs))
	}
	for _, c := range cs {
		if c.Trigger != event.CompactAuto || c.After >= c.Before || c.Before <= 3200 || c.Summarised == 0 {
			t.Errorf("compaction %+v; want an automatic one past 80%% of 4000 that shrank the context", c)
		}
	}
	h := s.History()
	if err := pairsIntact(h); err != nil {
		t.Fatal(err)
	}
	first := h[0].Parts[0].Text
	if !strings.HasPrefix(first, CompactedMarker) || !strings.Contains(first, "summary: read files so far") ||
		!strings.Contains(first, "- f1.go\n") || !strings.Contains(first, fmt.Sprintf("- f%d.go", 12-(len(h)-2)/2)) {
		t.Errorf("history opens with %q; want the summary and every file touched, the first included", first)
	}
	last := h[len(h)-2].Parts[0].ToolResult
	if last == nil || last.ToolCallID != "r12" || len(last.Content) != 3000 {
		t.Errorf("the last read is not kept verbatim: %+v", h[len(h)-2])
	}
	used, window := s.Context()
	if window != 4000 || used <= 0 || used > 3200 {
		t.Errorf("context %d of %d; want the last request's, under the threshold", used, window)
	}
}

func TestARequestTheProviderRefusesAsTooLongIsCompactedOnceAndRetried(t *testing.T) {
	// Atomic does not know this model's window, so nothing compacts
	// before the server refuses.
	p, srv := testkit.Model(t, readsScenario(6, "4000"))
	var rec recorder
	s := readSession(t, p, backend.ContextPolicy{}, 3000, &rec)
	res, err := s.Run(context.Background(), "read them all")
	if err != nil || res.Text != "done" {
		t.Fatalf("run: %+v, %v; want done", res, err)
	}
	cs := compactions(&rec)
	if len(cs) == 0 || cs[0].Trigger != event.CompactTooLong {
		t.Fatalf("compactions %+v; want one after the refusal", cs)
	}
	refused := 0
	for _, e := range srv.Log() {
		if e.Status == 400 {
			refused++
		}
	}
	if refused != len(cs) {
		t.Errorf("%d refusals for %d compactions; want one compaction and one retry per refusal", refused, len(cs))
	}
}

func TestAConversationThatCannotFitFailsSayingSo(t *testing.T) {
	p, _ := testkit.Model(t, readsScenario(1, "500"))
	var rec recorder
	s := readSession(t, p, backend.ContextPolicy{Window: 500}, 100, &rec)
	_, err := s.Run(context.Background(), strings.Repeat("a very long prompt ", 200))
	if err == nil || !provider.IsContextTooLong(err) || !strings.Contains(err.Error(), "does not fit the model's context window") {
		t.Fatalf("err = %v; want a clear too-long error wrapping the provider's", err)
	}
}

func TestCompactSummarisesOnRequestWithTheUsersInstructions(t *testing.T) {
	p, srv := testkit.Model(t, readsScenario(2, "0"))
	var rec recorder
	s := readSession(t, p, backend.ContextPolicy{Window: 100_000}, 500, &rec)
	if _, err := s.Run(context.Background(), "read two"); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(context.Background(), "focus on f2"); err != nil {
		t.Fatal(err)
	}
	log := srv.Log()
	sum := log[len(log)-1]
	if sum.Rule != "summary" || len(sum.Tools) != 0 || !strings.Contains(sum.Messages[len(sum.Messages)-1].Text, "Instructions for this summary: focus on f2") {
		t.Errorf("last request %+v; want the summary request with the instructions and no tools", sum)
	}
	h := s.History()
	if len(h) != 2 || h[1].Role != provider.RoleAssistant || h[1].Parts[0].Text != "done" {
		t.Errorf("history %+v; want the summary and the last answer", h)
	}
	if cs := compactions(&rec); len(cs) != 1 || cs[0].Trigger != event.CompactManual {
		t.Errorf("compactions %+v; want one manual", cs)
	}
	s.Reset()
	if err := s.Compact(context.Background(), ""); err != ErrNothingToCompact {
		t.Errorf("compacting an empty history: %v, want ErrNothingToCompact", err)
	}
}

func TestToolResultsTooLargeToKeepAreCutWithANoteBeforeTheSummary(t *testing.T) {
	p, srv := testkit.Model(t, readsScenario(3, "0"))
	var rec recorder
	s := readSession(t, p, backend.ContextPolicy{Window: 8000}, 9000, &rec)
	if _, err := s.Run(context.Background(), "read"); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	log := srv.Log()
	sum := log[len(log)-1]
	cut := 0
	for _, m := range sum.Messages {
		if m.Role == "tool" || strings.Contains(m.Text, "cut when the context was compacted") {
			cut++
		}
	}
	if sum.InputTokens > 8000 || !strings.Contains(fmt.Sprint(sum.Messages), "cut when the context was compacted: kept the first") {
		t.Errorf("summary request of %d tokens, messages %.300v; want the large results cut with a note, within the window", sum.InputTokens, sum.Messages)
	}
}

// randomHistory is a conversation as the loop builds it: prompts, answers
// with zero to three calls, results (with a delivered message sometimes),
// an interrupted answer now and then.
func randomHistory(r *rand.Rand) []provider.Message {
	h := []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "go"}}}}
	id := 0
	for range r.IntN(30) {
		a := provider.Message{Role: provider.RoleAssistant}
		calls := r.IntN(4)
		if calls == 0 || r.IntN(2) == 0 {
			a.Parts = append(a.Parts, provider.Part{Text: strings.Repeat("x", r.IntN(400))})
		}
		var res provider.Message
		res.Role = provider.RoleUser
		for range calls {
			id++
			cid := fmt.Sprint("c", id)
			a.Parts = append(a.Parts, provider.Part{ToolCall: &provider.ToolCall{ID: cid, Name: "read", Input: json.RawMessage(`{}`)}})
			res.Parts = append(res.Parts, provider.Part{ToolResult: &provider.ToolResult{ToolCallID: cid, Content: strings.Repeat("y", r.IntN(4000))}})
		}
		h = append(h, a)
		if calls > 0 {
			if r.IntN(4) == 0 {
				res.Parts = append(res.Parts, provider.Part{Text: "a message arrived"})
			}
			h = append(h, res)
		} else {
			h = append(h, provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Text: "next"}}})
		}
	}
	return h
}

func TestTheCutNeverSeparatesACallFromItsResult(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 2000 {
		h := randomHistory(r)
		keep := int64(r.IntN(3000))
		c := cutPoint(h, tokensEach(h), keep)
		if c == 0 {
			continue
		}
		if !cleanCut(h, c) {
			t.Fatalf("case %d: cut %d is not clean", n, c)
		}
		kept := append([]provider.Message{summaryMessage("s", nil, "")}, h[c:]...)
		if err := pairsIntact(kept); err != nil {
			t.Fatalf("case %d (cut %d of %d): %v", n, c, len(h), err)
		}
		if c < len(h)-1 && messagesTokens(h[c:]) > keep {
			// Only the latest clean cut may leave a tail over the budget.
			for i := c + 1; i < len(h); i++ {
				if cleanCut(h, i) {
					t.Fatalf("case %d: cut %d keeps %d tokens > %d while a later clean cut %d exists", n, c, messagesTokens(h[c:]), keep, i)
				}
			}
		}
		if c > 1 && cleanCut(h, c-1) && messagesTokens(h[c-1:]) <= keep {
			t.Fatalf("case %d: cut %d keeps fewer turns than the budget allows", n, c)
		}
	}
}

func TestCuttingResultsLeavesTheHistoryItCameFromUntouched(t *testing.T) {
	h := []provider.Message{
		{Role: provider.RoleUser, Parts: []provider.Part{{Text: "go"}}},
		{Role: provider.RoleAssistant, Parts: []provider.Part{{ToolCall: &provider.ToolCall{ID: "a", Name: "read"}}}},
		{Role: provider.RoleUser, Parts: []provider.Part{{ToolResult: &provider.ToolResult{ToolCallID: "a", Content: strings.Repeat("é", 3000)}}}},
	}
	out := capResults(h, 1025)
	if got := h[2].Parts[0].ToolResult.Content; len(got) != 6000 {
		t.Fatalf("the original result was changed to %d bytes", len(got))
	}
	c := out[2].Parts[0].ToolResult.Content
	if !strings.HasPrefix(c, strings.Repeat("é", 512)+"\n[cut when the context was compacted: kept the first 1024 of 6000 bytes]") {
		t.Errorf("cut result %.80q…; want the first whole runes and a note", c)
	}
}

func TestCarriedStatesTheFilesTouchedAndTheLatestPlanAcrossCompactions(t *testing.T) {
	call := func(name, in string) provider.Message {
		return provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{{ToolCall: &provider.ToolCall{ID: name, Name: name, Input: json.RawMessage(in)}}}}
	}
	earlier := summaryMessage("before", []string{"a.go", "b.go"}, "- [in_progress] old plan")
	files, plan := carried([]provider.Message{earlier, call("edit", `{"file_path":"c.go"}`), call("read", `{"file_path":"a.go"}`)})
	if strings.Join(files, ",") != "a.go,b.go,c.go" || plan != "- [in_progress] old plan" {
		t.Errorf("files %v plan %q; want the earlier summary's files then the new one, and its plan", files, plan)
	}
	_, plan = carried([]provider.Message{earlier, call("todo_write", `{"todos":[{"content":"Run tests","status":"completed"},{"content":"Ship","status":"pending"}]}`)})
	if plan != "- [completed] Run tests\n- [pending] Ship" {
		t.Errorf("plan %q; want the latest todo_write", plan)
	}
}
