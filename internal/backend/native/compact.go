package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// Compaction replaces an agent's older turns with a summary the model
// writes in a request that offers no tools. The system prompt (memory
// included) stays as it is; the summary message states the files the
// agent touched and its plan; the last turns stay verbatim. The cut is
// always just before an assistant message whose predecessor made no tool
// call, so no tool call is ever separated from its result.

// CompactedMarker opens the message that replaces the summarised turns.
const CompactedMarker = "[Context compacted]"

// SummaryRequest is the instruction of the summary request, after the
// turns it summarises.
const SummaryRequest = "Your context window is nearly full. Write a summary of the conversation so far that will replace it: " +
	"you will continue from the summary and your last turns alone. Keep the user's requests and constraints, what you did and found " +
	"(names, paths, commands, results), decisions and why, errors and their fixes, and what remains to do next. " +
	"Answer with the summary only; no tools are available for this answer."

// Shares of the window: the last turns kept verbatim fill at most
// keepShare of it (unless the last turn alone is larger); a tool result in
// the summarised turns keeps at most resultShare; a summary answer is
// given summaryShare.
const (
	keepShare    = 0.25
	resultShare  = 0.125
	summaryShare = 0.125
	// minResultBytes is the least of a tool result a cut keeps.
	minResultBytes = 1024
)

// ErrNothingToCompact says the history has no earlier turn to summarise.
var ErrNothingToCompact = errors.New("nothing to compact: the history has no earlier turn to summarise")

// fileTool reports a tool whose input names the file it touches (a
// switch: a package-level map is built at init in every process).
func fileTool(name string) bool {
	switch name {
	case "read", "write", "edit", "multi_edit":
		return true
	}
	return false
}

// Compact summarises the session's older turns now (the /compact command),
// with the user's instructions for the summary if any. It waits for a Run
// in progress to end.
func (s *Session) Compact(ctx context.Context, instructions string) error {
	if s.cfg.Provider == nil {
		return errors.New("agent: no provider configured")
	}
	s.runMu.Lock()
	defer s.runMu.Unlock()
	return s.compact(ctx, instructions, event.CompactManual)
}

// cleanCut reports whether h may be cut before message i: an assistant
// message whose predecessor made no tool call, so every call before the
// cut has its result before it too.
func cleanCut(h []provider.Message, i int) bool {
	if i <= 0 || i >= len(h) || h[i].Role != provider.RoleAssistant {
		return false
	}
	for _, p := range h[i-1].Parts {
		if p.ToolCall != nil {
			return false
		}
	}
	return true
}

// cutPoint is the index of the first message kept verbatim: the earliest
// clean cut whose tail estimates at most keep tokens, or the latest clean
// cut when even that tail is larger; 0 when there is no clean cut (nothing
// to summarise). toks are the estimates of h's messages.
func cutPoint(h []provider.Message, toks []int64, keep int64) int {
	best := 0
	var tail int64
	for i := len(h) - 1; i > 0; i-- {
		tail += toks[i]
		if best != 0 && tail > keep {
			break
		}
		if cleanCut(h, i) {
			best = i
		}
	}
	return best
}

// cutText is s cut to at most max bytes (on a rune boundary) with a note
// saying how much was kept; s itself when it fits.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("\n[cut when the context was compacted: kept the first %d of %d bytes]", n, len(s))
}

// capResults is msgs with every tool result longer than max bytes cut;
// the messages and results it changes are copies.
func capResults(msgs []provider.Message, max int) []provider.Message {
	out := msgs
	copied := false
	for i, m := range msgs {
		for j, p := range m.Parts {
			if p.ToolResult == nil || len(p.ToolResult.Content) <= max {
				continue
			}
			if !copied {
				out, copied = append([]provider.Message(nil), msgs...), true
			}
			if &out[i].Parts[0] == &msgs[i].Parts[0] {
				out[i].Parts = append([]provider.Part(nil), m.Parts...)
			}
			r := *p.ToolResult
			r.Content = cutText(r.Content, max)
			out[i].Parts[j] = provider.Part{ToolResult: &r}
		}
	}
	return out
}

// capped is capResults(msgs, max) with the estimates of its messages:
// toks, the estimates of msgs, for those it left as they were.
func capped(msgs []provider.Message, toks []int64, max int) ([]provider.Message, []int64) {
	out, ot := capResults(msgs, max), toks
	for i := range out {
		if len(out[i].Parts) == 0 || &out[i].Parts[0] == &msgs[i].Parts[0] {
			continue
		}
		if &ot[0] == &toks[0] {
			ot = append([]int64(nil), toks...)
		}
		ot[i] = messageTokens(out[i])
	}
	return out, ot
}

// fitResults cuts tool results in msgs, halving the cap from start bytes,
// until msgs estimate at most budget tokens or the cap reaches its floor.
// toks are the estimates of msgs; it returns those of what it keeps.
func fitResults(msgs []provider.Message, toks []int64, start int, budget int64) ([]provider.Message, []int64) {
	out, ot := capped(msgs, toks, max(start, minResultBytes))
	for c := start / 2; sum(ot) > budget && c >= minResultBytes; c /= 2 {
		out, ot = capped(msgs, toks, c)
	}
	return out, ot
}

// dropOldest removes the oldest turns of msgs, at clean cuts, until they
// estimate at most budget tokens; a note opens what remains. toks are the
// estimates of msgs.
func dropOldest(msgs []provider.Message, toks []int64, budget int64) []provider.Message {
	note := provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Text: "[earlier turns dropped: they did not fit the summary request]"}}}
	noteTokens := messageTokens(note)
	// from skips the cut just after the note: dropping nothing but the
	// note, it would put the same note back and loop for ever.
	from := 1
	for total := sum(toks); total > budget; from = 2 {
		j := 0
		for i := from; i < len(msgs); i++ {
			if cleanCut(msgs, i) {
				j = i
				break
			}
		}
		if j == 0 {
			return msgs
		}
		total += noteTokens - sum(toks[:j])
		msgs = append([]provider.Message{note}, msgs[j:]...)
		toks = append([]int64{noteTokens}, toks[j:]...)
	}
	return msgs
}

// withInstruction is msgs followed by the summary instruction (and the
// user's), in the last user message when msgs end with one.
func withInstruction(msgs []provider.Message, instructions string) []provider.Message {
	text := SummaryRequest
	if instructions = strings.TrimSpace(instructions); instructions != "" {
		text += "\n\nInstructions for this summary: " + instructions
	}
	out := append([]provider.Message(nil), msgs...)
	if n := len(out); n > 0 && out[n-1].Role == provider.RoleUser {
		out[n-1].Parts = append(append([]provider.Part(nil), out[n-1].Parts...), provider.Part{Text: text})
		return out
	}
	return append(out, provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Text: text}}})
}

// Section headers of the summary message, read back by carried.
const (
	filesHeader = "Files touched:\n"
	planHeader  = "Current plan (todo_write):\n"
)

// summaryMessage is the user message that replaces the summarised turns.
func summaryMessage(summary string, files []string, plan string) provider.Message {
	var b strings.Builder
	b.WriteString(CompactedMarker + " The earlier conversation was summarised to fit the context window; the turns after this message are verbatim.\n\nSummary:\n")
	b.WriteString(strings.TrimSpace(summary))
	if len(files) > 0 {
		b.WriteString("\n\n" + filesHeader)
		for _, f := range files {
			b.WriteString("- " + f + "\n")
		}
	}
	if plan != "" {
		b.WriteString("\n\n" + planHeader + plan)
	}
	return provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Text: strings.TrimRight(b.String(), "\n")}}}
}

// section is the lines after the last header in text, up to a blank line.
func section(text, header string) string {
	i := strings.LastIndex(text, header)
	if i < 0 {
		return ""
	}
	rest := text[i+len(header):]
	if j := strings.Index(rest, "\n\n"); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimRight(rest, "\n")
}

// carried is what a summary message states besides the summary: the
// files the agent touched (in the order first touched) and its latest
// plan, from h's tool calls and what an earlier summary in h stated.
func carried(h []provider.Message) (files []string, plan string) {
	seen := map[string]bool{}
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, m := range h {
		for _, p := range m.Parts {
			switch {
			case m.Role == provider.RoleUser && strings.HasPrefix(p.Text, CompactedMarker):
				for _, l := range strings.Split(section(p.Text, filesHeader), "\n") {
					add(strings.TrimPrefix(l, "- "))
				}
				if pl := section(p.Text, planHeader); pl != "" {
					plan = pl
				}
			case p.ToolCall != nil && fileTool(p.ToolCall.Name):
				var in struct {
					FilePath string `json:"file_path"`
				}
				if json.Unmarshal(p.ToolCall.Input, &in) == nil {
					add(in.FilePath)
				}
			case p.ToolCall != nil && p.ToolCall.Name == "todo_write":
				var in struct{ Todos []event.Todo }
				if json.Unmarshal(p.ToolCall.Input, &in) == nil {
					var b strings.Builder
					for _, t := range in.Todos {
						fmt.Fprintf(&b, "- [%s] %s\n", t.Status, t.Content)
					}
					plan = strings.TrimRight(b.String(), "\n")
				}
			}
		}
	}
	return files, plan
}

// compact replaces the older turns with the model's summary of them and
// reports it (context.compact, and the summary request's usage). The
// caller holds runMu.
func (s *Session) compact(ctx context.Context, instructions, trigger string) error {
	s.preCompact(ctx, trigger, instructions)
	specs := s.cfg.Tools.Specs()
	h := s.History()
	// Each message is estimated once; every step below sums these.
	toks := tokensEach(h)
	before := s.nextTokensOf(specs, toks)
	w := s.window()
	if w == 0 {
		w = before // unknown window: size the parts by what is held now
	}
	keep := int64(float64(w) * keepShare)
	if trigger == event.CompactManual {
		keep = 0 // asked for: all but the last turn
	}
	c := cutPoint(h, toks, keep)
	if c == 0 {
		return ErrNothingToCompact
	}
	// The summary request must fit: the summarised turns get what the
	// window leaves after the system prompt, the instruction and the answer.
	answer := int64(float64(w) * summaryShare)
	budget := w - fixedTokens(s.cfg.System, nil) - answer - tokensOf(len(SummaryRequest)+len(instructions)+256)
	old, oldToks := fitResults(h[:c], toks[:c], int(float64(w)*resultShare)*4, budget)
	old = dropOldest(old, oldToks, budget)
	req := provider.Request{Model: s.Model(), System: s.cfg.System, Messages: withInstruction(old, instructions),
		MaxTokens: min(s.cfg.MaxTokens, int(answer)), OneOff: true}
	if req.MaxTokens <= 0 {
		req.MaxTokens = int(min(answer, 8192))
	}
	resp, err := s.cfg.Provider.Stream(ctx, req, nil)
	if err != nil {
		return fmt.Errorf("compacting the context: %w", err)
	}
	summary := strings.TrimSpace(resp.Text)
	if summary == "" {
		return errors.New("compacting the context: the model wrote an empty summary")
	}
	files, plan := carried(h)
	kept := append([]provider.Message{summaryMessage(summary, files, plan)}, h[c:]...)
	keptToks := append([]int64{messageTokens(kept[0])}, toks[c:]...)
	// The last turn alone may be too large to keep whole.
	if limit := int64(float64(w) * keepShare * 2); fixedTokens(s.cfg.System, specs)+sum(keptToks) > limit {
		rest, restToks := fitResults(kept[1:], keptToks[1:], int(limit)*4, limit-keptToks[0]-fixedTokens(s.cfg.System, specs))
		kept, keptToks = append(kept[:1:1], rest...), append(keptToks[:1:1], restToks...)
	}
	s.mu.Lock()
	s.history, s.base = kept, 0
	s.mu.Unlock()
	s.historyChanged()
	after := s.nextTokensOf(specs, keptToks)
	s.mu.Lock()
	s.context = after
	s.mu.Unlock()
	u := resp.Usage
	u.ContextWindow = s.window()
	s.emit(event.UsageUpdate, "", event.UsageUpdateData{Usage: u, Delta: true, Context: after})
	s.emit(event.ContextCompact, "", event.ContextCompactData{Before: before, After: after, Trigger: trigger, Summarised: c})
	return nil
}
