package backend

import (
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
)

// Children is the sub-agent bookkeeping every CLI translator shares: the
// ids Atomic gives the sub-agents a CLI runs (<type>-<n>, or the tree's
// namer) and the CLI's own ids of each (a Codex thread, a Copilot agentId,
// a Claude Code tool_use or task id, an OpenCode child session), so that
// what the CLI writes with its ids (a spawn's acknowledgement, a wait's
// report, the lead's own message) reaches the transcript with ours: the
// ids the user sees in the tree and types in /tasks. It keeps each
// sub-agent's record (Child, with the translator's own X) and the ledger
// of every agent's tool calls, so that each call closes once and before
// its agent ends. Not safe for concurrent use: the translator's lock (or
// its one reader) guards it.
type Children[X any] struct {
	cfg    Config
	counts map[string]int    // agent type → sub-agents so far
	ours   map[string]string // the CLI's id → ours (rewritten in the transcript)
	repl   *strings.Replacer // rebuilt when ours grows; nil: none yet
	kids   []*Child[X]       // in the order they were named
	byID   map[string]*Child[X]
	alias  map[string]*Child[X] // the CLI's ids of a child → it
	calls  map[callKey]*call
}

// Child is one sub-agent a CLI runs, under the id Atomic gave it.
type Child[X any] struct {
	// ID is ours; SessionID the sub-agent's session (the lead's
	// SessionID+"/"+ID); Parent the agent that started it (the lead or
	// another sub-agent), which its events carry from the first on.
	ID, SessionID, Parent string
	// Call is the tool call of Parent's that started it.
	Call string
	// Type is its agent type.
	Type string
	// Done is set once it ended (its subagent.complete was emitted).
	Done bool
	// X is what the translator keeps of it besides.
	X X
}

type callKey struct{ agent, call string }

// call is one tool call of the ledger: its name, and whether it ended.
type call struct {
	name  string
	ended bool
}

// Call is a tool call the ledger closed: its id and tool name.
type Call struct{ ID, Name string }

// NewChildren returns the bookkeeping of cfg's session.
func NewChildren[X any](cfg Config) *Children[X] {
	return &Children[X]{cfg: cfg, counts: map[string]int{}, ours: map[string]string{},
		byID: map[string]*Child[X]{}, alias: map[string]*Child[X]{}, calls: map[callKey]*call{}}
}

// Name gives the next sub-agent of agentType its id.
func (c *Children[X]) Name(agentType string) string {
	return c.cfg.Name(agentType, c.counts)
}

// New names a sub-agent of agentType that parent started with tool call
// callID (which, when not empty, finds it: Of(callID)) and keeps its
// record.
func (c *Children[X]) New(agentType, parent, callID string) *Child[X] {
	id := c.Name(agentType)
	k := &Child[X]{ID: id, SessionID: c.cfg.SessionID + "/" + id, Parent: parent, Call: callID, Type: agentType}
	c.kids = append(c.kids, k)
	c.byID[id] = k
	if callID != "" {
		c.alias[callID] = k
	}
	return k
}

// Get is the sub-agent whose id is id; nil when there is none.
func (c *Children[X]) Get(id string) *Child[X] { return c.byID[id] }

// Of is the sub-agent the CLI calls cliID (a Bind or Alias, or the tool
// call New was given); nil when there is none.
func (c *Children[X]) Of(cliID string) *Child[X] {
	if cliID == "" {
		return nil
	}
	return c.alias[cliID]
}

// Alias makes cliID find k (Of) without rewriting it in the transcript:
// an id the CLI never shows, or one too short to replace safely.
func (c *Children[X]) Alias(cliID string, k *Child[X]) {
	if cliID != "" {
		c.alias[cliID] = k
	}
}

// Bind records that the CLI calls sub-agent id cliID: Of finds it, and
// Rewrite replaces cliID with id.
func (c *Children[X]) Bind(cliID, id string) {
	if k := c.byID[id]; k != nil {
		c.Alias(cliID, k)
	}
	if cliID == "" || cliID == id || c.ours[cliID] == id {
		return
	}
	c.ours[cliID] = id
	c.repl = nil
}

// Ours is the id of the sub-agent the CLI calls cliID (Bind).
func (c *Children[X]) Ours(cliID string) (string, bool) {
	id, ok := c.ours[cliID]
	return id, ok
}

// All lists every sub-agent, in the order they were named.
func (c *Children[X]) All() []*Child[X] { return slices.Clone(c.kids) }

// Open lists the sub-agents that have not ended, in the order they were
// named.
func (c *Children[X]) Open() []*Child[X] {
	var out []*Child[X]
	for _, k := range c.kids {
		if !k.Done {
			out = append(out, k)
		}
	}
	return out
}

// StartCall records that agent started tool call id named name. It
// reports false, recording nothing, when the call is known already (a
// repeated report of a call open or ended).
func (c *Children[X]) StartCall(agent, id, name string) bool {
	k := callKey{agent, id}
	if c.calls[k] != nil {
		return false
	}
	c.calls[k] = &call{name: name}
	return true
}

// EndCall records that agent's tool call id ended and returns its name.
// It reports false when the call is not open: never started, or ended
// already (a late report of a call CloseCalls closed is dropped).
func (c *Children[X]) EndCall(agent, id string) (string, bool) {
	cl := c.calls[callKey{agent, id}]
	if cl == nil || cl.ended {
		return "", false
	}
	cl.ended = true
	return cl.name, true
}

// CallState reports whether agent's tool call id is open, and whether it
// ended.
func (c *Children[X]) CallState(agent, id string) (open, ended bool) {
	cl := c.calls[callKey{agent, id}]
	if cl == nil {
		return false, false
	}
	return !cl.ended, cl.ended
}

// CloseCalls ends agent's tool calls still open and returns them, by id:
// the caller reports each as cancelled before the agent's own end, since
// every call must close before its agent ends and a CLI reports no end of
// a call its stopped agent was running (or reports it after the agent's).
func (c *Children[X]) CloseCalls(agent string) []Call {
	var out []Call
	for k, cl := range c.calls {
		if k.agent == agent && !cl.ended {
			cl.ended = true
			out = append(out, Call{ID: k.call, Name: cl.name})
		}
	}
	slices.SortFunc(out, func(a, b Call) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Rewrite replaces every CLI id of a bound sub-agent in s with its id.
func (c *Children[X]) Rewrite(s string) string {
	if len(c.ours) == 0 || s == "" {
		return s
	}
	if c.repl == nil {
		keys := make([]string, 0, len(c.ours))
		for k := range c.ours {
			keys = append(keys, k)
		}
		// Longer ids first, so that none is cut by one it starts with.
		slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) })
		pairs := make([]string, 0, 2*len(keys))
		for _, k := range keys {
			pairs = append(pairs, k, c.ours[k])
		}
		c.repl = strings.NewReplacer(pairs...)
	}
	return c.repl.Replace(s)
}

// RewriteData is an event's payload with the CLI's ids of bound
// sub-agents replaced by theirs in what the transcript shows: a tool's
// input and result, a message, a sub-agent's result, an error. (A
// streamed delta that splits an id is left as is; the message's complete
// text follows it.)
func (c *Children[X]) RewriteData(data any) any {
	if len(c.ours) == 0 {
		return data
	}
	switch d := data.(type) {
	case event.ToolStartData:
		if len(d.Input) > 0 {
			d.Input = []byte(c.Rewrite(string(d.Input)))
		}
		return d
	case event.ToolCompleteData:
		d.Result, d.Error = c.Rewrite(d.Result), c.Rewrite(d.Error)
		return d
	case event.MessageDeltaData:
		d.Text = c.Rewrite(d.Text)
		return d
	case event.MessageCompleteData:
		d.Text = c.Rewrite(d.Text)
		return d
	case event.SubagentCompleteData:
		d.Result, d.Error = c.Rewrite(d.Result), c.Rewrite(d.Error)
		return d
	case event.ErrorData:
		d.Message = c.Rewrite(d.Message)
		return d
	}
	return data
}

// HasCall reports whether some agent started tool call id.
func (c *Children[X]) HasCall(id string) bool {
	for k := range c.calls {
		if k.call == id {
			return true
		}
	}
	return false
}
