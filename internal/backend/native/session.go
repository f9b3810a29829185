// Package native is Atomic's own agent loop behind the session seam: a
// Session owns one context window (message history, system prompt, tool
// set), streams a model turn, runs the tool calls the model made, feeds the
// results back and loops until the model stops or a limit is hit. Open
// opens it from the same backend.Config the CLI adapters (claudecode,
// codex, opencode, copilot) are opened from, so whoever opens a session
// names a backend and a Config and never the loop itself. The lead, every
// sub-agent and every teammate on this backend is a Session; they share
// nothing but the event sink (whose reducer counts their tool uses and
// usage) and the permission gate.
package native

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/inbox"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/tools"
)

// DefaultMaxTurns bounds model requests per Run when Config.MaxTurns is 0.
const DefaultMaxTurns = 100

// Config builds a Session.
type Config struct {
	SessionID string
	ID        string // agent id: "lead", "explore-1", a teammate's name
	ParentID  string
	// TaskCallID is the task call that started this agent (empty for the
	// lead and teammates); when set, each of its tool calls is reported as
	// subagent.update with the current tool, as every backend reports its
	// sub-agents' progress.
	TaskCallID string
	// Name labels the agent in approval prompts and events ("lead",
	// "Explore", a teammate's name).
	Name     string
	Provider provider.Provider
	Model    string // empty: the provider's default
	System   string
	Tools    *tools.Set
	Gate     *permission.Gate // nil allows every call
	Sink     event.Sink       // nil: events are dropped
	// MaxTurns bounds model requests per Run (0: DefaultMaxTurns).
	MaxTurns  int
	MaxTokens int
	// Effort asks the model to think first (empty: no thinking).
	Effort provider.Effort
	// Now is the clock for event times (nil: time.Now).
	Now func() time.Time
	// OnHistory, when set, is given a copy of the whole history after each
	// change (a message added, a reset): what the provider needs to
	// continue the conversation, for the session store. It must only
	// queue.
	OnHistory func([]provider.Message)
	// History is a conversation to continue (a resumed session's); a
	// turn cut off by the process's death is closed first (see closeCut).
	History []provider.Message
	// Context sizes the model's window and when the history is compacted.
	Context backend.ContextPolicy
	// Hooks are the user's hooks this agent runs (nil: none).
	Hooks *hooks.Runner
}

// ErrMaxTurns is returned (wrapped) when a Run hits its turn limit.
var ErrMaxTurns = errors.New("turn limit reached")

// ErrPromptBlocked is returned (wrapped, with the hook's reason) when a
// UserPromptSubmit hook blocked the prompt: the model never saw it.
var ErrPromptBlocked = errors.New("prompt blocked by a UserPromptSubmit hook")

// Result is what a Run produced.
type Result = backend.Result

// Session is one agent's conversation. Run may not be called concurrently
// with itself; Deliver and the accessors are safe from any goroutine.
type Session struct {
	cfg Config
	// started is set by the first Run, ended by Close (SessionEnd runs
	// once, for a session that started).
	started, ended atomic.Bool
	// runMu serialises Run and Compact: both rewrite the history.
	runMu sync.Mutex

	mu      sync.Mutex
	history []provider.Message
	inbox   inbox.Inbox
	turns   int
	key     string // prompt cache key, see cacheKey
	// base is the input the provider reported for the last request, which
	// carried baseMsgs messages (0: none since the history was rewritten);
	// context is the context use last reported (see Context).
	base     int64
	baseMsgs int
	context  int64
}

// New returns a Session; it emits session.start on its first Run.
func New(cfg Config) *Session {
	if cfg.Sink == nil {
		cfg.Sink = event.Discard
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Tools == nil {
		cfg.Tools = tools.NewSet()
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	if cfg.Model == "" && cfg.Provider != nil {
		cfg.Model = cfg.Provider.Model()
	}
	return &Session{cfg: cfg, history: closeCut(cfg.History), key: cacheKey(cfg)}
}

// CutOffResult answers the tool calls of a turn the process died in.
const CutOffResult = "interrupted: Atomic exited before this tool call returned"

// closeCut returns h with the tool calls of its last message answered,
// when that message is the model's and the process died before their
// results were recorded: a provider refuses a call without its result.
func closeCut(h []provider.Message) []provider.Message {
	h = append([]provider.Message(nil), h...)
	if len(h) == 0 || h[len(h)-1].Role != provider.RoleAssistant {
		return h
	}
	var parts []provider.Part
	for _, p := range h[len(h)-1].Parts {
		if p.ToolCall != nil {
			parts = append(parts, provider.Part{ToolResult: &provider.ToolResult{
				ToolCallID: p.ToolCall.ID, Content: CutOffResult, IsError: true}})
		}
	}
	if len(parts) > 0 {
		h = append(h, provider.Message{Role: provider.RoleUser, Parts: parts})
	}
	return h
}

// ID is the agent id.
func (s *Session) ID() string { return s.cfg.ID }

// Config returns the session's configuration.
func (s *Session) Config() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// History returns a copy of the conversation so far.
func (s *Session) History() []provider.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]provider.Message(nil), s.history...)
}

// Turns counts the model requests the session made.
func (s *Session) Turns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turns
}

// Deliver queues a user-side message (a teammate's message, a notice) for
// the session's next model request.
func (s *Session) Deliver(text string) { s.inbox.Deliver(text) }

// DeliverLazy queues a message whose text is decided when the next request
// is built: take returns it, or false when it has become moot by then (a
// background result the agent already read with wait_for_task), so a result
// reaches the model exactly once. live reports, without side effects,
// whether take would still deliver.
func (s *Session) DeliverLazy(take func() (string, bool), live func() bool) {
	s.inbox.DeliverLazy(take, live)
}

// Pending reports whether delivered messages wait for the next request.
func (s *Session) Pending() bool { return s.inbox.Live() }

// SetModel switches the model for the following requests.
func (s *Session) SetModel(model string) {
	s.mu.Lock()
	s.cfg.Model = model
	s.mu.Unlock()
}

// Model is the model the session uses.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Model
}

// Reset clears the history (the /clear command). The caller makes sure no
// Run is in progress: a turn still running would write into the new history.
func (s *Session) Reset() {
	s.mu.Lock()
	s.history = nil
	s.base, s.context = 0, 0
	s.inbox.Clear()
	s.mu.Unlock()
	s.historyChanged()
}

// Truncate keeps the history's first n messages (/rewind); like Reset,
// only between runs. The context figure is recounted at the next request.
func (s *Session) Truncate(n int) {
	s.mu.Lock()
	if n < len(s.history) {
		s.history = s.history[:n:n]
	}
	s.base, s.context = 0, 0
	s.mu.Unlock()
	s.historyChanged()
}

func (s *Session) emit(typ event.Type, toolCallID string, data any) {
	s.cfg.Sink.Emit(event.Event{
		Type: typ, Time: s.cfg.Now(), SessionID: s.cfg.SessionID,
		AgentID: s.cfg.ID, ParentAgentID: s.cfg.ParentID, ToolCallID: toolCallID, Data: data,
	})
}

// Run adds prompt (if not empty) and any delivered messages as a user
// message and loops model turn → tool calls until the model stops. On
// cancellation it records what was cut off in the history and returns an
// error wrapping ctx's.
func (s *Session) Run(ctx context.Context, prompt string) (*Result, error) {
	return s.RunImages(ctx, prompt, nil)
}

// RunImages is Run with images after the prompt's text in the same user
// message (a pasted screenshot, an ACP client's image block).
func (s *Session) RunImages(ctx context.Context, prompt string, images []provider.Image) (*Result, error) {
	if s.cfg.Provider == nil {
		return nil, errors.New("agent: no provider configured")
	}
	s.runMu.Lock()
	defer s.runMu.Unlock()
	res := &Result{}
	var next []provider.Part
	if first := !s.started.Load(); first {
		s.started.Store(true)
		s.emit(event.SessionStart, "", event.SessionStartData{
			Model: s.Model(), Provider: s.cfg.Provider.Name(), Tools: s.cfg.Tools.Names(), Name: s.cfg.Name,
		})
		next = append(next, s.startHooks(ctx)...)
	}
	if prompt != "" {
		next = append(next, provider.Part{Text: prompt})
	}
	extra, err := s.promptHooks(ctx, prompt)
	if err != nil {
		return res, err
	}
	next = append(next, extra...)
	for i := range images {
		next = append(next, provider.Part{Image: &images[i]})
	}
	stopBlocks := 0
	for first := true; ; first = false {
		next = append(next, s.takeInbox()...)
		if first && len(next) == 0 {
			// Woken for messages that became moot: nothing new to say, and
			// a request now would answer the model's own last message.
			return res, nil
		}
		if len(next) > 0 {
			s.append(provider.Message{Role: provider.RoleUser, Parts: next})
			next = nil
		}
		if res.Turns >= s.cfg.MaxTurns {
			return res, fmt.Errorf("%w: %d model turns", ErrMaxTurns, s.cfg.MaxTurns)
		}
		resp, err := s.turn(ctx)
		res.Turns++
		if resp != nil {
			res.Usage = res.Usage.Add(resp.Usage)
		}
		if err != nil {
			return res, err
		}
		res.Text, res.StopReason = resp.Text, resp.StopReason
		if len(resp.ToolCalls) == 0 {
			if s.Pending() {
				continue // a message arrived during the turn: answer it now
			}
			if reason, again := s.stopHooks(ctx, stopBlocks, resp.Text); again {
				stopBlocks++
				next = append(next, provider.Part{Text: reason})
				continue
			}
			return res, nil
		}
		results, err := s.runTools(ctx, resp.ToolCalls)
		for i := range results {
			next = append(next, provider.Part{ToolResult: &results[i]})
		}
		if err != nil {
			s.append(provider.Message{Role: provider.RoleUser, Parts: next})
			return res, err
		}
	}
}

func (s *Session) takeInbox() []provider.Part {
	var parts []provider.Part
	for _, text := range s.inbox.Take() {
		parts = append(parts, provider.Part{Text: text})
		// The conversation's record (the store, stream-json) holds it too.
		s.emit(event.MessageDelivered, "", event.MessageDeliveredData{Text: text})
	}
	return parts
}

func (s *Session) append(m provider.Message) {
	s.mu.Lock()
	s.history = append(s.history, m)
	s.mu.Unlock()
	s.historyChanged()
}

// historyChanged hands the history to OnHistory.
func (s *Session) historyChanged() {
	if s.cfg.OnHistory != nil {
		s.cfg.OnHistory(s.History())
	}
}

// turn streams one model response and appends it to the history. It
// compacts the history first when the request would pass the threshold,
// and once more, then retries, when the provider refuses it as too long.
func (s *Session) turn(ctx context.Context) (*provider.Response, error) {
	specs := s.cfg.Tools.Specs()
	if t := s.cfg.Context.Threshold(s.Model()); t > 0 && s.nextTokens(specs) > t {
		// A failure here is not the turn's: the request may still fit,
		// and a refusal compacts again below or fails saying why.
		if err := s.compact(ctx, "", event.CompactAuto); err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted: %w", ctx.Err())
		}
	}
	begin := s.cfg.Now()
	resp, n, partial, err := s.request(ctx, specs)
	if err != nil && ctx.Err() == nil && provider.IsContextTooLong(err) {
		if cerr := s.compact(ctx, "", event.CompactTooLong); cerr != nil {
			err = fmt.Errorf("the conversation does not fit the model's context window, and compacting it failed (%v): %w", cerr, err)
		} else {
			begin = s.cfg.Now()
			if resp, n, partial, err = s.request(ctx, specs); err != nil && provider.IsContextTooLong(err) {
				err = fmt.Errorf("the conversation does not fit the model's context window even after compaction: %w", err)
			}
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			// Record what was cut off so the history shows it.
			cut := string(partial) + "\n[interrupted by the user]"
			s.append(provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{{Text: cut}}})
			s.emit(event.MessageComplete, "", event.MessageCompleteData{Text: string(partial), StopReason: event.StopInterrupted})
			return nil, fmt.Errorf("interrupted: %w", ctx.Err())
		}
		s.emit(event.Error, "", event.ErrorData{Message: err.Error()})
		return nil, err
	}
	s.mu.Lock()
	s.history = append(s.history, resp.Message())
	s.mu.Unlock()
	s.historyChanged()
	s.emit(event.MessageComplete, "", event.MessageCompleteData{Text: resp.Text, StopReason: resp.StopReason})
	// The request's usage: the bus's reducer adds it to the agent's and
	// delivers the running totals; the context is this agent's alone.
	u := resp.Usage
	if w := s.window(); w > 0 {
		u.ContextWindow = w
	}
	call := &event.ModelCall{Model: s.Model(), Provider: s.cfg.Provider.Name(), Start: begin, StopReason: resp.StopReason, Usage: u}
	s.emit(event.UsageUpdate, "", event.UsageUpdateData{Usage: u, Delta: true, Context: s.measured(n, u), Call: call})
	return resp, nil
}

// request streams one request of the history as it is, returning the
// answer, how many messages the request carried and the text streamed
// before a failure.
func (s *Session) request(ctx context.Context, specs []provider.ToolSpec) (*provider.Response, int, []byte, error) {
	req := provider.Request{
		Model: s.Model(), System: s.cfg.System, Messages: s.History(),
		Tools: specs, MaxTokens: s.cfg.MaxTokens, CacheKey: s.key, Effort: s.cfg.Effort,
	}
	var partial []byte
	thought := false // thinking streamed in this attempt
	resp, err := s.cfg.Provider.Stream(ctx, req, func(c provider.Chunk) {
		switch c.Kind {
		case provider.ChunkText:
			partial = append(partial, c.Text...)
			s.emit(event.MessageDelta, "", event.MessageDeltaData{Text: c.Text})
		case provider.ChunkThinking:
			thought = true
			s.emit(event.ThinkingDelta, "", event.ThinkingDeltaData{Text: c.Text})
		case provider.ChunkRetry:
			partial = partial[:0]
			s.emit(event.MessageDelta, "", event.MessageDeltaData{Discard: true})
			if thought {
				thought = false
				s.emit(event.ThinkingDelta, "", event.ThinkingDeltaData{Discard: true})
			}
			d := event.RetryData{Attempt: c.Attempt, MaxAttempts: c.MaxAttempts, DelayMS: c.Delay.Milliseconds(), Reason: c.Reason}
			if c.Err != nil {
				d.Error = provider.OneLine(c.Err.Error())
			}
			s.emit(event.Retry, "", d)
		}
	})
	s.mu.Lock()
	s.turns++
	s.mu.Unlock()
	return resp, len(req.Messages), partial, err
}

// Close ends the session, running the lead's SessionEnd hooks. The native
// loop holds no process or goroutine between turns, so there is nothing
// to release.
func (s *Session) Close() error {
	if s.started.Load() && s.ended.CompareAndSwap(false, true) {
		s.endHooks()
	}
	return nil
}
