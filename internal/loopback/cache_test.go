package loopback

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
)

// bigSystem is a system prompt well past the 1024-token cache minimum.
var bigSystem = strings.Repeat("You are a careful coding agent. ", 200)

// cachedParams is a request with breakpoints on its tool, its system
// prompt and the last block of its last message.
func cachedParams(system string, msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	p := anthropicParams("claude-x", msgs...)
	tool := anthropicTool("bash")
	tool.OfTool.CacheControl = anthropic.NewCacheControlEphemeralParam()
	p.Tools = []anthropic.ToolUnionParam{tool}
	p.System = []anthropic.TextBlockParam{{Text: system, CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	last := p.Messages[len(p.Messages)-1].Content
	last[len(last)-1].OfText.CacheControl = anthropic.NewCacheControlEphemeralParam()
	return p
}

// checkAnthropicCache compares the usage a client saw with the log and
// with the request's estimated input, which the three counts split.
func checkAnthropicCache(t *testing.T, u anthropic.Usage, e LogEntry, read, write bool) {
	t.Helper()
	if int(u.CacheReadInputTokens) != e.CacheReadTokens || int(u.CacheCreationInputTokens) != e.CacheWriteTokens {
		t.Errorf("usage read/write %d/%d, log %d/%d", u.CacheReadInputTokens, u.CacheCreationInputTokens, e.CacheReadTokens, e.CacheWriteTokens)
	}
	if got := int(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens); got != e.InputTokens {
		t.Errorf("input %d + read %d + write %d = %d, want the estimate %d", u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, got, e.InputTokens)
	}
	if (e.CacheReadTokens > 0) != read || (e.CacheWriteTokens > 0) != write {
		t.Errorf("read %d write %d, want read %v write %v", e.CacheReadTokens, e.CacheWriteTokens, read, write)
	}
}

func TestAnthropicSecondTurnReadsThePrefixTheFirstWroteThroughAMovedBreakpoint(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "answer"}}}})
	c := anthropicClient(s, testKey)
	first, _, _, err := anthropicStream(context.Background(), c, cachedParams(bigSystem, anthropicUser("first question")))
	if err != nil {
		t.Fatal(err)
	}
	e1 := waitForLog(t, s, 1)[0]
	checkAnthropicCache(t, first.Usage, e1, false, true)
	if len(e1.CacheBreakpoints) != 3 || e1.CacheBreakpoints[0].Place != "tools[0]" || e1.CacheBreakpoints[1].Place != "system[0]" ||
		e1.CacheBreakpoints[2].Place != "messages[0].content[0]" {
		t.Fatalf("breakpoints = %+v", e1.CacheBreakpoints)
	}
	if last := e1.CacheBreakpoints[2]; e1.CacheWriteTokens != last.Tokens {
		t.Errorf("wrote %d tokens, want the prefix to the last breakpoint, %d", e1.CacheWriteTokens, last.Tokens)
	}

	// Turn two: the breakpoint moves to the new last message; the first
	// turn's prefix is found at an earlier block boundary.
	p := cachedParams(bigSystem, anthropicUser("first question"),
		anthropic.NewAssistantMessage(anthropic.NewTextBlock("answer")), anthropicUser("second question"))
	p.Messages[0].Content[0].OfText.CacheControl = anthropic.CacheControlEphemeralParam{}
	second, _, _, err := anthropicStream(context.Background(), c, p)
	if err != nil {
		t.Fatal(err)
	}
	e2 := waitForLog(t, s, 2)[1]
	checkAnthropicCache(t, second.Usage, e2, true, true)
	if e2.CacheReadHash != e1.CacheBreakpoints[2].Hash || e2.CacheReadTokens != e1.CacheBreakpoints[2].Tokens {
		t.Errorf("read %d tokens of %s, want turn one's %d of %s", e2.CacheReadTokens, e2.CacheReadHash, e1.CacheBreakpoints[2].Tokens, e1.CacheBreakpoints[2].Hash)
	}
	if want := e2.CacheBreakpoints[2].Tokens - e2.CacheReadTokens; e2.CacheWriteTokens != want {
		t.Errorf("wrote %d, want the tail to the last breakpoint, %d", e2.CacheWriteTokens, want)
	}

	// The same request again, non-streaming, reads everything up to the
	// last breakpoint and writes nothing.
	third, err := c.Messages.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	e3 := waitForLog(t, s, 3)[2]
	checkAnthropicCache(t, third.Usage, e3, true, false)
	if e3.CacheReadHash != e2.CacheBreakpoints[2].Hash {
		t.Errorf("read %s, want turn two's last prefix %s", e3.CacheReadHash, e2.CacheBreakpoints[2].Hash)
	}
}

func TestAnthropicSiblingsShareTheToolsAndSystemPrefixButNotAChangedOne(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "ok"}}}})
	c := anthropicClient(s, testKey)
	for _, task := range []string{"task one", "task two"} {
		if _, err := c.Messages.New(context.Background(), cachedParams(bigSystem, anthropicUser(task))); err != nil {
			t.Fatal(err)
		}
	}
	// One byte changed in the system prompt: nothing to read.
	changed := strings.Replace(bigSystem, "careful", "Careful", 1)
	msg, err := c.Messages.New(context.Background(), cachedParams(changed, anthropicUser("task one")))
	if err != nil {
		t.Fatal(err)
	}
	entries := waitForLog(t, s, 3)
	sibling := entries[1]
	if sibling.CacheReadHash != entries[0].CacheBreakpoints[1].Hash || sibling.CacheBreakpoints[1].Hash != entries[0].CacheBreakpoints[1].Hash {
		t.Errorf("sibling read %s, want the shared system prefix %s", sibling.CacheReadHash, entries[0].CacheBreakpoints[1].Hash)
	}
	if entries[2].CacheReadTokens != 0 || entries[2].CacheBreakpoints[1].Hash == entries[0].CacheBreakpoints[1].Hash || msg.Usage.CacheReadInputTokens != 0 {
		t.Errorf("changed prefix: read %d, hash %s", entries[2].CacheReadTokens, entries[2].CacheBreakpoints[1].Hash)
	}
}

func TestAnthropicMoreThanFourBreakpointsAreRefused(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "ok"}}}})
	p := cachedParams("system", anthropicUser("a"), anthropic.NewAssistantMessage(anthropic.NewTextBlock("b")), anthropicUser("c"))
	p.Messages[0].Content[0].OfText.CacheControl = anthropic.NewCacheControlEphemeralParam()
	p.Messages[1].Content[0].OfText.CacheControl = anthropic.NewCacheControlEphemeralParam()
	_, err := newAnthropic(s).Messages.New(context.Background(), p)
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Type() != "invalid_request_error" ||
		!strings.Contains(apiErr.RawJSON(), `"A maximum of 4 blocks with cache_control may be provided. Found 5."`) {
		t.Fatalf("err = %v", err)
	}
}

func TestAnthropicPrefixUnderTheMinimumIsNotCachedUnlessTheScenarioLowersIt(t *testing.T) {
	for _, tc := range []struct {
		least int
		cache bool
	}{{0, false}, {5, true}} {
		s := startServer(t, &Scenario{CacheMinTokens: tc.least, Rules: []Rule{{Respond: &Response{Text: "ok"}}}})
		c := newAnthropic(s)
		var last *anthropic.Message
		for range 2 {
			msg, err := c.Messages.New(context.Background(), cachedParams("short system", anthropicUser("hi")))
			if err != nil {
				t.Fatal(err)
			}
			last = msg
		}
		entries := s.Log()
		if got := entries[0].CacheWriteTokens > 0 && entries[1].CacheReadTokens > 0; got != tc.cache {
			t.Errorf("cache_min_tokens %d: write %d then read %d, want caching %v", tc.least, entries[0].CacheWriteTokens, entries[1].CacheReadTokens, tc.cache)
		}
		checkAnthropicCache(t, last.Usage, entries[1], tc.cache, false)
	}
}

func TestAnthropicRequestWithoutBreakpointsReportsNoCaching(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "ok"}}}})
	p := anthropicParams("claude-x", anthropicUser(bigSystem))
	for range 2 {
		msg, err := newAnthropic(s).Messages.New(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if msg.Usage.CacheReadInputTokens != 0 || msg.Usage.CacheCreationInputTokens != 0 {
			t.Errorf("usage = %+v", msg.Usage)
		}
	}
	if e := s.Log()[1]; e.CacheReadTokens != 0 || len(e.CacheBreakpoints) != 0 {
		t.Errorf("entry = %+v", e)
	}
}

func TestOpenAIChatCachesAKeyedPrefixIn128TokenSteps(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "ok"}}}})
	c := newOpenAI(s)
	turn1 := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(bigSystem), openai.UserMessage("first")}
	turn2 := append(turn1[:2:2], openai.AssistantMessage("ok"), openai.UserMessage("second"))
	var cached []int64
	for _, msgs := range [][]openai.ChatCompletionMessageParamUnion{turn1, turn2} {
		p := openAIParams("gpt-x", msgs...)
		p.PromptCacheKey = openai.String("agent-7")
		resp, err := c.Chat.Completions.New(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		cached = append(cached, resp.Usage.PromptTokensDetails.CachedTokens)
	}
	entries := s.Log()
	if cached[0] != 0 || cached[1] < 1024 || cached[1]%128 != 0 || int(cached[1]) != entries[1].CacheReadTokens || int(cached[1]) > entries[1].InputTokens {
		t.Errorf("cached tokens %v, log %d of %d", cached, entries[1].CacheReadTokens, entries[1].InputTokens)
	}
	if entries[0].PromptCacheKey != "agent-7" || entries[1].CacheReadHash == "" {
		t.Errorf("entries = %+v", entries[1])
	}
	// Without a prompt_cache_key nothing is cached (see doc.go).
	resp, err := c.Chat.Completions.New(context.Background(), openAIParams("gpt-x", turn2...))
	if err != nil || resp.Usage.PromptTokensDetails.CachedTokens != 0 {
		t.Errorf("unkeyed: %v, cached %d", err, resp.Usage.PromptTokensDetails.CachedTokens)
	}
}

func TestResponsesCachesAKeyedPrefix(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "ok"}}}})
	var cached []int64
	for _, prompt := range []string{"first", "second"} {
		p := responsesParams("gpt-x", prompt)
		p.Instructions = openai.String(bigSystem)
		p.PromptCacheKey = openai.String("agent-8")
		run := responsesStream(context.Background(), newResponses(s), p)
		if run.err != nil {
			t.Fatal(run.err)
		}
		cached = append(cached, run.final.Usage.InputTokensDetails.CachedTokens)
	}
	e := waitForLog(t, s, 2)[1]
	if cached[0] != 0 || cached[1] < 1024 || cached[1]%128 != 0 || int(cached[1]) != e.CacheReadTokens || e.PromptCacheKey != "agent-8" {
		t.Errorf("cached %v, entry read %d key %q", cached, e.CacheReadTokens, e.PromptCacheKey)
	}
}

func TestAnthropicScriptedUsageIsReportedAsWrittenWhileTheLogKeepsTheCache(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "answer", Usage: &Usage{InputTokens: 10, OutputTokens: 5}}}}})
	c := anthropicClient(s, testKey)
	msg, _, _, err := anthropicStream(context.Background(), c, cachedParams(bigSystem, anthropicUser("first question")))
	if err != nil {
		t.Fatal(err)
	}
	if u := msg.Usage; u.InputTokens != 10 || u.OutputTokens != 5 || u.CacheCreationInputTokens != 0 || u.CacheReadInputTokens != 0 {
		t.Errorf("usage %+v, want the rule's 10 in and 5 out, no cache split", u)
	}
	if e := waitForLog(t, s, 1)[0]; e.CacheWriteTokens == 0 {
		t.Error("the log lost the cache write the breakpoints asked for")
	}
}
