// Package demo is the demo model: a provider whose decisions are canned but
// whose tool calls are real, so Atomic shows something useful on a fresh
// machine with no API key. It explores the current directory (ls and glob in
// parallel, then reads the most telling file) and summarises what it found,
// saying plainly that it is the demo model. Asked about agents, it fans the
// exploration out to parallel Explore sub-agents.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// Banner starts every demo answer.
const Banner = "[demo model: canned decisions, real tool calls — set ANTHROPIC_API_KEY or OPENAI_API_KEY for a real model]"

// Model is the demo model's name.
const Model = "atomic-demo"

// Provider is the demo model.
type Provider struct {
	// Delay paces streamed words so the output looks live (0: none).
	Delay time.Duration
}

// New returns the demo model with a light streaming pace.
func New() *Provider { return &Provider{Delay: 8 * time.Millisecond} }

// Name implements provider.Provider.
func (*Provider) Name() string { return "demo" }

// Model implements provider.Provider.
func (*Provider) Model() string { return Model }

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Chunk)) (*provider.Response, error) {
	resp := p.decide(req)
	for _, w := range splitWords(resp.Text) {
		if p.Delay > 0 {
			t := time.NewTimer(p.Delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
		} else if err := ctx.Err(); err != nil {
			return nil, err
		}
		on(provider.Chunk{Kind: provider.ChunkText, Text: w})
	}
	for i := range resp.ToolCalls {
		on(provider.Chunk{Kind: provider.ChunkToolCall, ToolCall: &resp.ToolCalls[i]})
	}
	resp.Model = Model
	resp.Usage = event.Usage{InputTokens: int64(approxTokens(req)), OutputTokens: int64(len(resp.Text)/4 + 10*len(resp.ToolCalls))}
	return resp, nil
}

// decide is the canned script, driven by what the conversation holds.
func (p *Provider) decide(req provider.Request) *provider.Response {
	first, last := userTexts(req.Messages)
	_ = first
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	round := toolRounds(req.Messages)
	results := lastToolResults(req.Messages)

	// Lead asked about agents: fan out to parallel explorers once.
	if offered["task"] && round == 0 && wantsAgents(last) {
		return &provider.Response{
			Text: Banner + "\n\nI'll split the exploration across three Explore agents running in parallel.",
			ToolCalls: []provider.ToolCall{
				call(req, 0, "task", map[string]any{"description": "Survey the top level", "prompt": "List the top-level entries of the workspace and say what kind of project it is.", "subagent_type": "explore"}),
				call(req, 1, "task", map[string]any{"description": "Find the documentation", "prompt": "Find the Markdown documentation files of the workspace and read the main one.", "subagent_type": "explore"}),
				call(req, 2, "task", map[string]any{"description": "Find the Go sources", "prompt": "Find the Go source files of the workspace and count them.", "subagent_type": "explore"}),
			},
			StopReason: provider.StopToolUse,
		}
	}
	if offered["task"] && round == 1 && hasTaskResults(req.Messages) {
		var b strings.Builder
		b.WriteString(Banner + "\n\nThe three Explore agents reported back:\n")
		for _, r := range results {
			fmt.Fprintf(&b, "\n- %s", strings.TrimPrefix(firstLine(r, 200), "- "))
		}
		b.WriteString("\n\nThat was a canned plan, run for real by parallel sub-agents.")
		return &provider.Response{Text: b.String(), StopReason: provider.StopEndTurn}
	}

	subagent := !offered["task"]
	if subagent && round == 0 {
		// A sub-agent of the demo's own plan: one focused look per task.
		low := strings.ToLower(first)
		switch {
		case strings.Contains(low, "top-level"):
			return toolTurn(req, "Listing the workspace.", "ls", map[string]any{"path": "."})
		case strings.Contains(low, "go source"):
			return toolTurn(req, "Looking for Go files.", "glob", map[string]any{"pattern": "**/*.go"})
		case strings.Contains(low, "markdown"):
			return toolTurn(req, "Looking for documentation.", "glob", map[string]any{"pattern": "**/*.md"})
		}
	}
	if subagent && round >= 1 {
		return &provider.Response{Text: findings(req.Messages), StopReason: provider.StopEndTurn}
	}

	switch {
	case round == 0 && offered["ls"] && offered["glob"]:
		return &provider.Response{
			Text: Banner + "\n\nLet me look around: listing this directory and finding its documentation at the same time.",
			ToolCalls: []provider.ToolCall{
				call(req, 0, "ls", map[string]any{"path": "."}),
				call(req, 1, "glob", map[string]any{"pattern": "**/*.md"}),
			},
			StopReason: provider.StopToolUse,
		}
	case round == 1 && offered["read"]:
		if f := pickFile(results); f != "" {
			return toolTurn(req, "Reading "+f+" to see what this is about.", "read", map[string]any{"file_path": f, "limit": 40})
		}
	}
	return &provider.Response{Text: Banner + "\n\n" + findings(req.Messages) + "\nThis was the demo model: its decisions are canned, the tool calls above ran for real.", StopReason: provider.StopEndTurn}
}

func toolTurn(req provider.Request, text, name string, input map[string]any) *provider.Response {
	return &provider.Response{Text: text, ToolCalls: []provider.ToolCall{call(req, 0, name, input)}, StopReason: provider.StopToolUse}
}

func call(req provider.Request, i int, name string, input map[string]any) provider.ToolCall {
	b, _ := json.Marshal(input)
	return provider.ToolCall{ID: fmt.Sprintf("demo_%d_%d", len(req.Messages), i), Name: name, Input: b}
}

func wantsAgents(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "agent") || strings.Contains(s, "parallel")
}

// findings describes the real tool results of the conversation, one line
// per tool call.
func findings(msgs []provider.Message) string {
	var b strings.Builder
	calls := map[string]provider.ToolCall{}
	for _, m := range msgs {
		for _, pt := range m.Parts {
			if pt.ToolCall != nil {
				calls[pt.ToolCall.ID] = *pt.ToolCall
			}
		}
	}
	any := false
	for _, m := range msgs {
		for _, pt := range m.Parts {
			r := pt.ToolResult
			if r == nil {
				continue
			}
			any = true
			c := calls[r.ToolCallID]
			switch {
			case r.IsError:
				fmt.Fprintf(&b, "- %s failed: %s\n", c.Name, firstLine(r.Content, 200))
			case c.Name == "ls":
				entries := nonEmptyLines(r.Content)
				dirs := 0
				for _, e := range entries {
					if strings.HasSuffix(e, "/") {
						dirs++
					}
				}
				fmt.Fprintf(&b, "- The directory has %d entries (%d folders): %s\n", len(entries), dirs, preview(entries, 8))
			case c.Name == "glob":
				files := nonEmptyLines(r.Content)
				var in struct {
					Pattern string `json:"pattern"`
				}
				_ = json.Unmarshal(c.Input, &in)
				fmt.Fprintf(&b, "- Files matching `%s`: %d (%s)\n", in.Pattern, len(files), preview(files, 5))
			case c.Name == "read":
				var in struct {
					FilePath string `json:"file_path"`
				}
				_ = json.Unmarshal(c.Input, &in)
				fmt.Fprintf(&b, "- %s begins: %q\n", in.FilePath, firstLine(stripLineNumbers(r.Content), 160))
			default:
				fmt.Fprintf(&b, "- %s returned: %s\n", c.Name, firstLine(r.Content, 160))
			}
		}
	}
	if !any {
		b.WriteString("The demo model can only explore the current directory with real tools; configure a provider for real answers.\n")
	}
	return b.String()
}
