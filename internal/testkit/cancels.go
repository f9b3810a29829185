package testkit

import "sync"

// Cancels records the agents a session was asked to cancel (CancelAgent)
// and answers with the error set by Refuse. Embed it beside a
// backend.Session to make a CLI session whose cancels a test reads.
type Cancels struct {
	mu   sync.Mutex
	ids  []string
	fail error
}

// CancelAgent records id and returns the error set by Refuse.
func (c *Cancels) CancelAgent(id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ids = append(c.ids, id)
	return c.fail
}

// Refuse makes later cancels fail with err (nil: succeed).
func (c *Cancels) Refuse(err error) {
	c.mu.Lock()
	c.fail = err
	c.mu.Unlock()
}

// Asked returns the ids asked so far, in order.
func (c *Cancels) Asked() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.ids...)
}
