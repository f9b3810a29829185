package bus

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// OwnerKind is what runs an agent.
type OwnerKind string

// The kinds of owner.
const (
	// OwnerSubagents is the sub-agent manager (a native loop, or an external
	// CLI session it opened for an agent type on another backend).
	OwnerSubagents OwnerKind = "sub-agent manager"
	// OwnerTeam is the team manager: the agent is a teammate.
	OwnerTeam OwnerKind = "team manager"
	// OwnerCLI is an external CLI's session: the agent is one of the CLI's own
	// sub-agents, stopped through that session.
	OwnerCLI OwnerKind = "external CLI session"
	// OwnerRemote is a NATS worker the sub-agent manager sent the task to.
	OwnerRemote OwnerKind = "NATS worker"
	// OwnerWorker is an atomic worker's run (runtime.Worker): the agent is
	// a task it took from the queue, in the worker's own registry.
	OwnerWorker OwnerKind = "worker run"
	// OwnerShells is the run's background shells (bash run_in_background):
	// the "agent" is a shell.
	OwnerShells OwnerKind = "background shells"
)

// Owner is what runs one agent and how to stop it.
type Owner struct {
	Kind OwnerKind
	// By is the agent whose session runs this one (event.LeadID for the
	// sub-agents of a CLI lead); "" when a manager runs it.
	By string
	// Cancel stops the agent; its error says why it cannot. It must not
	// block on the agent's end.
	Cancel func() error
	// Done, when set, is closed once the agent has ended, so a caller can
	// wait for its cancel to take effect.
	Done <-chan struct{}
}

// String names the owner in messages: "the external CLI session of
// outsider-1".
func (o Owner) String() string {
	if o.By == "" {
		return "the " + string(o.Kind)
	}
	return fmt.Sprintf("the %s of %s", o.Kind, o.By)
}

// Owners answers who runs each agent of the tree and how to stop it.
// Whoever starts an agent registers it: the sub-agent manager its
// tasks (local, or sent to a NATS worker), the team manager its
// teammates, and the sink of an external CLI's session each sub-agent
// that CLI announces with subagent.start. cancel_task, /tasks, the
// interrupt and the completion gate then look an agent up here instead of
// guessing its owner from its id. Whether an agent is done is not kept
// here: that is the lifecycle reducer's, which Unsettled is given.
//
// Owners is the run's record of owners, keyed by agent id. The zero
// Owners is not usable: use NewOwners. Safe for concurrent use.
type Owners struct {
	mu    sync.Mutex
	byID  map[string]Owner
	order []string // ids in order of first registration
}

// New returns an empty Owners.
func NewOwners() *Owners { return &Owners{byID: map[string]Owner{}} }

// Register records that o runs agent id. Register it before the agent's
// first event is emitted, so that no reader sees the agent and not its
// owner. Registering an id again replaces its owner (a teammate's new
// incarnation).
func (r *Owners) Register(id string, o Owner) {
	if o.Cancel == nil {
		panic("owner: registering " + id + " without a canceller")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[id]; !ok {
		r.order = append(r.order, id)
	}
	r.byID[id] = o
}

// Lookup returns the owner of agent id, or an error naming the known ids.
func (r *Owners) Lookup(id string) (Owner, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o, ok := r.byID[id]; ok {
		return o, nil
	}
	if len(r.order) == 0 {
		return Owner{}, fmt.Errorf("unknown agent %q: no agent has been started", id)
	}
	return Owner{}, fmt.Errorf("unknown agent %q; known agents: %s", id, strings.Join(r.order, ", "))
}

// Cancel stops agent id through its owner.
func (r *Owners) Cancel(id string) error {
	o, err := r.Lookup(id)
	if err != nil {
		return err
	}
	if err := o.Cancel(); err != nil {
		return fmt.Errorf("cancel %s (run by %s): %w", id, o, err)
	}
	return nil
}

// IDs lists the registered agents in order of registration.
func (r *Owners) IDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.order)
}

// Select lists the registered agents, in order of registration, whose
// owner keep accepts. keep runs without the registry's lock held, so it
// may read other locked state (the bus).
func (r *Owners) Select(keep func(id string, o Owner) bool) []string {
	r.mu.Lock()
	ids := slices.Clone(r.order)
	owners := make([]Owner, len(ids))
	for i, id := range ids {
		owners[i] = r.byID[id]
	}
	r.mu.Unlock()
	var out []string
	for i, id := range ids {
		if keep(id, owners[i]) {
			out = append(out, id)
		}
	}
	return out
}

// Unsettled lists the registered agents that holds says still keep the
// lead from completing (lifecycle.State.Holds, read through the bus): the
// completion gate waits until it is empty.
func (r *Owners) Unsettled(holds func(id string) bool) []string {
	return r.Select(func(id string, _ Owner) bool { return holds(id) })
}
