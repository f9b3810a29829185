// Package demo is the demo model: a provider whose decisions are canned but
// whose tool calls are real, so Atomic shows what it is for on a fresh
// machine with no API key. Each session (the lead, a sub-agent, a teammate)
// gets its own script, chosen from its request alone: the lead's from the
// latest user prompt ("explore this project with agents", "show me a team",
// "what is in this folder?", anything else a menu), a sub-agent's from its
// task prompt, a teammate's from its system prompt and inbox. Pauses make the
// agents visibly run for a few seconds; they honour cancellation.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// Banner starts the first answer to every prompt.
const Banner = "[demo model: canned decisions, real tool calls — set ANTHROPIC_API_KEY or OPENAI_API_KEY for a real model]"

// Model is the demo model's name.
const Model = "atomic-demo"

// Streamed words are paced so the text looks live: wordDelay apart, faster
// for long texts so none takes more than maxStream.
const (
	wordDelay = 12 * time.Millisecond
	maxStream = 800 * time.Millisecond
)

// maxLeadWait bounds how long the background agent waits for the lead's
// turn to end, so a lead that failed cannot keep it alive for good.
const maxLeadWait = 60 * time.Second

// Provider is the demo model. One Provider serves every session of a run.
type Provider struct {
	// Scale multiplies every pause: 1 is the real pace (a tour of about
	// ten seconds), 0.05 twenty times faster (tests), 0 no pauses at all.
	Scale float64

	runs atomic.Int64 // numbers fan-outs, to pair a background agent with its lead turn
	ids  atomic.Int64 // numbers tool calls: ids stay unique across sessions and /clear

	mu       sync.Mutex
	leadDone map[string]*signal // by fan-out token
}

// signal is closed once, when a fan-out's lead turn has answered.
type signal struct {
	ch     chan struct{}
	closed bool
}

// New returns the demo model at its real pace.
func New() *Provider { return &Provider{Scale: 1} }

// Name implements provider.Provider.
func (*Provider) Name() string { return "demo" }

// Model implements provider.Provider.
func (*Provider) Model() string { return Model }

// reply is one canned response and how it is delivered.
type reply struct {
	// wait, if set, holds the reply back until it is closed (at most
	// maxLeadWait): the background agent waits for the lead's turn.
	wait <-chan struct{}
	// think is the pause before the reply, while the agent's previous
	// tool stays its current one.
	think time.Duration
	text  string
	calls []provider.ToolCall
	// after runs once the reply has streamed.
	after func()
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Chunk)) (*provider.Response, error) {
	r := p.decide(req)
	if r.wait != nil {
		t := time.NewTimer(p.scaled(maxLeadWait))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-r.wait:
			t.Stop()
		case <-t.C:
		}
	}
	if err := p.pause(ctx, r.think); err != nil {
		return nil, err
	}
	words := splitWords(r.text)
	delay := wordDelay
	if n := time.Duration(len(words)); n > 0 && delay*n > maxStream {
		delay = maxStream / n
	}
	for _, w := range words {
		if err := p.pause(ctx, delay); err != nil {
			return nil, err
		}
		on(provider.Chunk{Kind: provider.ChunkText, Text: w})
	}
	for i := range r.calls {
		on(provider.Chunk{Kind: provider.ChunkToolCall, ToolCall: &r.calls[i]})
	}
	if r.after != nil {
		r.after()
	}
	stop := provider.StopEndTurn
	if len(r.calls) > 0 {
		stop = provider.StopToolUse
	}
	return &provider.Response{
		Text: r.text, ToolCalls: r.calls, StopReason: stop, Model: Model,
		Usage: event.Usage{InputTokens: int64(approxTokens(req)), OutputTokens: int64(len(r.text)/4 + 10*len(r.calls))},
	}, nil
}

func (p *Provider) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * p.Scale)
}

// pause waits d (scaled), returning early with ctx's error when it ends.
func (p *Provider) pause(ctx context.Context, d time.Duration) error {
	if d = p.scaled(d); d <= 0 {
		return ctx.Err()
	}
	return provider.Sleep(ctx, d)
}

// decide picks the script of the session that sent req: the lead by its
// system prompt (sub-agents and teammates may be offered task too, since
// they can nest), a teammate by send_message, else a sub-agent.
func (p *Provider) decide(req provider.Request) reply {
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	switch {
	case offered["task"] && strings.HasPrefix(req.System, "You are Atomic,"):
		return p.lead(req)
	case offered["send_message"]:
		return p.teammate(req)
	}
	return p.subagent(req)
}

// call makes a tool call with a fresh id.
func (p *Provider) call(name string, in map[string]any) provider.ToolCall {
	b, _ := json.Marshal(in)
	return provider.ToolCall{ID: fmt.Sprintf("demo_%d", p.ids.Add(1)), Name: name, Input: b}
}

// leadSignal returns the signal of fan-out token, creating it.
func (p *Provider) leadSignal(token string) *signal {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leadDone == nil {
		p.leadDone = map[string]*signal{}
	}
	s, ok := p.leadDone[token]
	if !ok {
		s = &signal{ch: make(chan struct{})}
		p.leadDone[token] = s
	}
	return s
}

// leadAnswered closes token's signal: the lead's turn has answered.
func (p *Provider) leadAnswered(token string) {
	s := p.leadSignal(token)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.ch)
	}
}

// forget drops token's signal once the background agent has used it.
func (p *Provider) forget(token string) {
	p.mu.Lock()
	delete(p.leadDone, token)
	p.mu.Unlock()
}
