package inbox

import "sync"

// Claim is the one delivery of a message that can reach its agent by more
// than one path (its inbox, or a tool that read it first, such as
// check_task): the first Take wins, and Then learns of it whichever path
// took it. The zero Claim is untaken; it is safe for concurrent use.
type Claim struct {
	mu    sync.Mutex
	taken bool
	then  []func()
}

// Take marks the message delivered and reports whether this is the first
// time; the first runs, before it returns, what Then registered.
func (c *Claim) Take() bool {
	c.mu.Lock()
	if c.taken {
		c.mu.Unlock()
		return false
	}
	c.taken = true
	then := c.then
	c.then = nil
	c.mu.Unlock()
	for _, f := range then {
		f()
	}
	return true
}

// Taken reports whether the message was delivered.
func (c *Claim) Taken() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.taken
}

// Then has f run once the message is delivered: at once, here, if it was.
func (c *Claim) Then(f func()) {
	c.mu.Lock()
	if !c.taken {
		c.then = append(c.then, f)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	f()
}
