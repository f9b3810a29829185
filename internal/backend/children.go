package backend

import (
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
)

// Children is the sub-agent bookkeeping every CLI translator shares: the
// ids Atomic gives the sub-agents a CLI runs (<type>-<n>, or the tree's
// namer) and the CLI's own id of each (a Codex thread, a Copilot agentId),
// so that what the CLI writes with its ids (a spawn's acknowledgement, a
// wait's report, the lead's own message) reaches the transcript with ours:
// the ids the user sees in the tree and types in /tasks. Not safe for
// concurrent use: the translator's lock guards it.
type Children struct {
	cfg    Config
	counts map[string]int    // agent type → sub-agents so far
	ours   map[string]string // the CLI's id → ours
	repl   *strings.Replacer // rebuilt when ours grows; nil: none yet
}

// NewChildren returns the bookkeeping of cfg's session.
func NewChildren(cfg Config) *Children {
	return &Children{cfg: cfg, counts: map[string]int{}, ours: map[string]string{}}
}

// Name gives the next sub-agent of agentType its id.
func (c *Children) Name(agentType string) string {
	return c.cfg.Name(agentType, c.counts)
}

// Bind records that the CLI calls sub-agent id cliID.
func (c *Children) Bind(cliID, id string) {
	if cliID == "" || cliID == id || c.ours[cliID] == id {
		return
	}
	c.ours[cliID] = id
	c.repl = nil
}

// Ours is the id of the sub-agent the CLI calls cliID.
func (c *Children) Ours(cliID string) (string, bool) {
	id, ok := c.ours[cliID]
	return id, ok
}

// Rewrite replaces every CLI id of a bound sub-agent in s with its id.
func (c *Children) Rewrite(s string) string {
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
func (c *Children) RewriteData(data any) any {
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
