package ui

import (
	"context"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/checkpoint"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/spawn"
)

// Backend is what the UI asks of a run: the subset of *runtime.Runtime the
// keys and commands use. Tests drive the model with a fake.
type Backend interface {
	// Submit queues a user prompt for the lead.
	Submit(prompt string)
	// Interrupt stops the lead's turn and every sub-agent.
	Interrupt(reason string)
	// InterruptTurn stops the lead's turn, keeping background agents and
	// teammates running when KeepsBackground says it can.
	InterruptTurn(reason string)
	// KeepsBackground reports whether InterruptTurn keeps background work
	// (a lead in an external CLI is interrupted whole).
	KeepsBackground() bool
	// Reset clears the conversation (/clear).
	Reset(reason string)
	// SwitchModel changes the lead's model (/model NAME).
	SwitchModel(model string)
	// Model is the lead's current model.
	Model() string
	// ProviderName names the lead's provider ("demo", "anthropic", …;
	// "" when the lead runs in an external CLI).
	ProviderName() string
	// ListModels lists the provider's models (/model NAME checks the
	// name); an error when it cannot.
	ListModels(ctx context.Context) ([]string, error)
	// Reducer is the run's bus, whose reducer views read (/cost).
	Reducer() *bus.Bus
	// AgentTypes lists the agent types and where each was defined.
	AgentTypes() []spawn.Type
	// CancelTask stops one sub-agent by id (/tasks).
	CancelTask(id string) error
	// ResumeTask continues a background sub-agent that Atomic's exit
	// interrupted, from its saved history (/tasks resume ID).
	ResumeTask(id string) error
	// MCP reports each MCP server's state (/mcp).
	MCP() []mcp.Status
	// Compact summarises the lead's older turns between turns (/compact),
	// telling done the outcome.
	Compact(instructions string, done func(error))
	// Checkpoints lists the prompts /rewind can go back to, newest first
	// (none when checkpoints are off).
	Checkpoints() []checkpoint.Summary
	// Rewind restores the code, the conversation or both to before a
	// prompt, telling done the outcome.
	Rewind(req runtime.RewindRequest, done func(runtime.Rewound, error))
	// Lead is the lead's record as the run's reducer (its bus) has it,
	// once the lead has emitted anything.
	Lead() (lifecycle.Record, bool)
}

// TeamControl is what /team may do with a team; nil when the run has none.
// The teams package implements it; the UI only consumes team events.
type TeamControl interface {
	Teammates() []Teammate
	Send(to, text string) error
	Stop(name string) error
}

// Teammate is one member of a team as /team lists it.
type Teammate struct {
	Name, Role, Status string
}

// RuntimeBackend adapts a runtime to Backend.
func RuntimeBackend(rt *runtime.Runtime) Backend { return rtBackend{rt} }

type rtBackend struct{ rt *runtime.Runtime }

// runBackend is the started run's Backend: prompts go to the run.
type runBackend struct {
	rtBackend
	run *runtime.Run
}

func (b runBackend) Submit(p string) { b.run.Submit(p) }

func (b runBackend) SubmitAtStart(p string, start func()) { b.run.SubmitAtStart(p, start) }

// submitAtStart gives b the prompt, start (nil: none) to run as its turn
// starts; a Backend that cannot wait for that runs start now.
func submitAtStart(b Backend, prompt string, start func()) {
	if s, ok := b.(interface{ SubmitAtStart(string, func()) }); ok && start != nil {
		s.SubmitAtStart(prompt, start)
		return
	}
	if start != nil {
		start()
	}
	b.Submit(prompt)
}

func (b rtBackend) Submit(p string)                        { b.rt.Submit(p) }
func (b rtBackend) Interrupt(reason string)                { b.rt.Interrupt(reason) }
func (b rtBackend) InterruptTurn(reason string)            { b.rt.InterruptTurn(reason) }
func (b rtBackend) KeepsBackground() bool                  { return b.rt.KeepsBackground() }
func (b rtBackend) Reset(reason string)                    { b.rt.Reset(reason) }
func (b rtBackend) SwitchModel(m string)                   { b.rt.SwitchModel(m) }
func (b rtBackend) Model() string                          { return b.rt.Model() }
func (b rtBackend) AgentTypes() []spawn.Type               { return b.rt.Manager().Types().All() }
func (b rtBackend) CancelTask(id string) error             { return b.rt.CancelTask(id) }
func (b rtBackend) ResumeTask(id string) error             { return b.rt.ResumeTask(id) }
func (b rtBackend) MCP() []mcp.Status                      { return b.rt.MCP() }
func (b rtBackend) Compact(instr string, done func(error)) { b.rt.Compact(instr, done) }
func (b rtBackend) Lead() (lifecycle.Record, bool)         { return b.rt.Bus().Lead() }
func (b rtBackend) Reducer() *bus.Bus                      { return b.rt.Bus() }
func (b rtBackend) Rewind(req runtime.RewindRequest, done func(runtime.Rewound, error)) {
	b.rt.Rewind(req, done)
}

func (b rtBackend) Checkpoints() []checkpoint.Summary {
	if cps := b.rt.Checkpoints(); cps != nil {
		return cps.List()
	}
	return nil
}
func (b rtBackend) ListModels(ctx context.Context) ([]string, error) {
	return provider.ListModels(ctx, b.rt.Provider())
}

func (b rtBackend) ProviderName() string {
	if p := b.rt.Provider(); p != nil {
		return p.Name()
	}
	return ""
}
