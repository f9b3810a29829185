package headless

import (
	"encoding/json"
	"io"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/termtext"
)

// Result is the json output, shaped like Claude Code's result object plus
// the agents of the run.
type Result struct {
	Type         string        `json:"type"`
	Subtype      string        `json:"subtype"`
	IsError      bool          `json:"is_error"`
	Result       string        `json:"result"`
	Error        string        `json:"error,omitempty"`
	DurationMS   int64         `json:"duration_ms"`
	NumTurns     int           `json:"num_turns"`
	SessionID    string        `json:"session_id"`
	Usage        event.Usage   `json:"usage"`
	TotalCostUSD *float64      `json:"total_cost_usd,omitempty"`
	Agents       []AgentResult `json:"agents"`
	// Teammates lists the run's teammates, when it had a team.
	Teammates []TeammateResult `json:"teammates,omitempty"`
}

// TeammateResult is one teammate's line in the result.
type TeammateResult struct {
	Name   string `json:"name"`
	Role   string `json:"role,omitempty"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// AgentResult is one sub-agent's line in the result.
type AgentResult struct {
	ID          string      `json:"id"`
	Type        string      `json:"type"`
	Description string      `json:"description"`
	Status      string      `json:"status"`
	Background  bool        `json:"background,omitempty"`
	DurationMS  int64       `json:"duration_ms"`
	ToolUses    int         `json:"tool_uses"`
	Usage       event.Usage `json:"usage"`
	CostUSD     *float64    `json:"cost_usd,omitempty"`
	Result      string      `json:"result,omitempty"`
	Error       string      `json:"error,omitempty"`
}

func buildResult(rt *runtime.Runtime, out runtime.Outcome, dur time.Duration, model string) Result {
	r := Result{
		Type: "result", Subtype: subtype(out.Err), IsError: out.Err != nil, Result: out.Result,
		DurationMS: dur.Milliseconds(), NumTurns: out.NumTurns, SessionID: rt.SessionID(),
		Usage: rt.Bus().TotalUsage(), Agents: []AgentResult{},
	}
	if out.Err != nil {
		r.Error = out.Err.Error()
	}
	if _, _, ok := provider.Price(model); ok {
		c := r.Usage.CostUSD
		r.TotalCostUSD = &c
	}
	for _, a := range rt.Bus().Agents() {
		u := a.Usage
		ar := AgentResult{
			ID: a.ID, Type: a.Name, Description: a.Description, Status: string(a.Status), Background: a.Background,
			DurationMS: a.Duration.Milliseconds(), ToolUses: a.ToolUses, Usage: u, Result: a.Result, Error: a.Error,
		}
		if _, _, ok := provider.Price(model); ok {
			c := u.CostUSD
			ar.CostUSD = &c
		}
		r.Agents = append(r.Agents, ar)
	}
	for _, tm := range rt.Team().Teammates() {
		r.Teammates = append(r.Teammates, TeammateResult{Name: tm.Name, Role: tm.Role, Status: string(tm.Status), Error: tm.Error})
	}
	return r
}

// writeJSON writes v as one line of JSON, the C1 controls in its strings
// escaped as well (encoding/json leaves them raw).
func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(termtext.JSONWriter(w))
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
