package spawn

import (
	"context"
	"errors"
	"sync"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/remote"
)

// RemoteSession is an agent on the NATS workers behind the session seam:
// its Run sends the task and waits for a worker's result, the worker's
// events reaching Spec.Sink meanwhile. It takes one prompt: a task on the
// workers is given nothing after it starts.
type RemoteSession struct {
	d    *remote.Dispatcher
	plan Plan
	spec Spec

	mu  sync.Mutex
	res remote.Result
}

// Run sends the task with prompt to the workers and waits for its end.
func (r *RemoteSession) Run(ctx context.Context, prompt string) (*backend.Result, error) {
	r.mu.Lock()
	p, s := r.plan, r.spec
	r.mu.Unlock()
	h := s.Remote.Hooks
	h.Sink = s.Sink
	res, err := r.d.Run(ctx, remote.Task{ID: s.AgentID, SessionID: s.SessionID, ParentID: s.ParentID,
		ToolCallID: s.ToolCallID, AgentType: p.Type.Name, Description: s.Remote.Description,
		Prompt: prompt, System: p.Type.Prompt, Tools: p.Type.Tools, Effort: string(p.Effort)}, h)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.res = res
	r.mu.Unlock()
	if !res.Success {
		return nil, errors.New(res.Error)
	}
	return &backend.Result{Text: res.Text, Usage: res.Usage, Turns: res.Turns}, nil
}

// Result is the worker's last result (its Patch names the agent's
// changes, Worker who ran it).
func (r *RemoteSession) Result() remote.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.res
}

// Deliver drops text: a task on the workers takes its prompt only.
func (*RemoteSession) Deliver(string) {}

// DeliverLazy drops the message, as Deliver does.
func (*RemoteSession) DeliverLazy(func() (string, bool), func() bool) {}

// Pending is false: nothing reaches the task after its prompt.
func (*RemoteSession) Pending() bool { return false }

// Reset has nothing to clear: each Run is a task of its own.
func (*RemoteSession) Reset() {}

// SetModel is kept for Model; the worker runs its own model.
func (r *RemoteSession) SetModel(model string) {
	r.mu.Lock()
	r.plan.Model = model
	r.mu.Unlock()
}

// Model is the model the plan named (the lead's, as shown in the tree).
func (r *RemoteSession) Model() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.plan.Model
}

// Close has nothing to release: Run's end ends the task.
func (*RemoteSession) Close() error { return nil }

var _ backend.Session = (*RemoteSession)(nil)
