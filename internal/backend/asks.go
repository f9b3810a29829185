package backend

import (
	"context"
	"sync"
)

// Asks are the approvals a CLI waits on while the gate puts them to the
// human. Stopping an agent withdraws its asks, which takes their prompts
// down: the stopped agent's tool call will not run, whatever the answer.
// The zero value is ready to use.
type Asks struct {
	mu   sync.Mutex
	asks map[string]pendingAsk // by the CLI's request id
}

type pendingAsk struct {
	owner  string // the CLI's session or thread that asks
	cancel context.CancelFunc
}

// Add registers request id of owner under a context of parent that
// Withdraw cancels; done forgets it once answered and reports whether the
// CLI still waits for the answer (false once Resolve said it does not).
func (a *Asks) Add(parent context.Context, id, owner string) (ctx context.Context, done func() (open bool)) {
	ctx, cancel := context.WithCancel(parent)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.asks == nil {
		a.asks = map[string]pendingAsk{}
	}
	a.asks[id] = pendingAsk{owner: owner, cancel: cancel}
	return ctx, func() bool {
		defer cancel()
		a.mu.Lock()
		defer a.mu.Unlock()
		_, open := a.asks[id]
		delete(a.asks, id)
		return open
	}
}

// Resolve withdraws request id, which the CLI settled itself (answered
// elsewhere, or dropped with its turn): nobody needs its answer.
func (a *Asks) Resolve(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p, ok := a.asks[id]; ok {
		delete(a.asks, id)
		p.cancel()
	}
}

// Withdraw cancels the pending asks of owner.
func (a *Asks) Withdraw(owner string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.asks {
		if p.owner == owner {
			p.cancel()
		}
	}
}

// WithdrawAll cancels every pending ask.
func (a *Asks) WithdrawAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.asks {
		p.cancel()
	}
}
