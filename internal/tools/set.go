package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/atomic-agent/atomic/internal/provider"
)

// Set is an ordered registry of tools, keyed by name. The order is the
// order tools are offered to the model. A Set is safe for concurrent use.
//
// A tool may also be held: callable by name (Get) but not offered (Specs,
// Names, Len) until Add offers it. Every byte of a tool definition is
// paid on every request, so a tool that cannot work yet is held; a model
// that calls it anyway (a script, a model that knows the name) still
// reaches it, through the gate like any other call.
type Set struct {
	mu     sync.RWMutex
	tools  []Tool
	held   []Tool
	awaits []Awaiter
}

// Awaiter finds a tool whose source is still starting (an MCP server):
// it blocks until that source is up or has failed, or ctx ends, and
// reports false at once for a name no starting source could offer.
type Awaiter func(ctx context.Context, name string) (Tool, bool)

// NewSet returns a set holding tools in order; a later tool with the same
// name as an earlier one replaces it.
func NewSet(tools ...Tool) *Set {
	s := &Set{}
	for _, t := range tools {
		s.Add(t)
	}
	return s
}

// Add appends t, or replaces the tool of the same name in place; a held
// tool of that name is offered from now on (as t).
func (s *Set) Add(t Tool) {
	if t == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = slices.DeleteFunc(s.held, func(h Tool) bool { return h.Name() == t.Name() })
	for i, old := range s.tools {
		if old.Name() == t.Name() {
			s.tools[i] = t
			return
		}
	}
	s.tools = append(s.tools, t)
}

// Hold registers t as callable but not offered, unless a tool of its name
// is already offered.
func (s *Set) Hold(t Tool) {
	if t == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.ContainsFunc(s.tools, func(o Tool) bool { return o.Name() == t.Name() }) {
		return
	}
	for i, old := range s.held {
		if old.Name() == t.Name() {
			s.held[i] = t
			return
		}
	}
	s.held = append(s.held, t)
}

// Get returns the tool called name, offered or held.
func (s *Set) Get(name string) (Tool, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, t := range s.tools {
		if t.Name() == name {
			return t, true
		}
	}
	for _, t := range s.held {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// AddAwaiter makes Await ask a for the tools this set does not have yet.
func (s *Set) AddAwaiter(a Awaiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.awaits = append(s.awaits, a)
}

// Await is Get, except that a tool whose source is still starting is
// waited for (AddAwaiter): a model that names a tool of an MCP server
// still coming up gets it once the server is up, not "unknown tool".
func (s *Set) Await(ctx context.Context, name string) (Tool, bool) {
	if t, ok := s.Get(name); ok || s == nil {
		return t, ok
	}
	s.mu.RLock()
	awaits := slices.Clone(s.awaits)
	s.mu.RUnlock()
	for _, a := range awaits {
		if t, ok := a(ctx, name); ok {
			return t, true
		}
	}
	return s.Get(name)
}

// Offer offers the held tools called names, in that order; a name that
// is not held (offered already, or unknown) is left as it is.
func (s *Set) Offer(names ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	moveNamed(&s.held, &s.tools, names)
}

// HoldBack holds the offered tools called names: they stay callable but
// are no longer offered until Offer (a name not offered is left as it is).
func (s *Set) HoldBack(names ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	moveNamed(&s.tools, &s.held, names)
}

// moveNamed moves the tools called names from *from to the end of *to,
// in the order of names.
func moveNamed(from, to *[]Tool, names []string) {
	for _, n := range names {
		if i := slices.IndexFunc(*from, func(t Tool) bool { return t.Name() == n }); i >= 0 {
			*to = append(*to, (*from)[i])
			*from = slices.Delete(*from, i, i+1)
		}
	}
}

// Offered reports whether the tool called name is offered (not held).
func (s *Set) Offered(name string) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.ContainsFunc(s.tools, func(t Tool) bool { return t.Name() == name })
}

// Names returns the offered tools' names in order.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.Name()
	}
	return names
}

// Len is the number of tools.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.tools)
}

// Specs describes the tools for the model, in order.
func (s *Set) Specs() []provider.ToolSpec {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	specs := make([]provider.ToolSpec, len(s.tools))
	for i, t := range s.tools {
		specs[i] = provider.ToolSpec{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema()}
	}
	return specs
}

// Without returns a new set of the tools not named; unknown names are
// ignored, since removing what is absent is already done.
// The new set waits for starting tools as this one does, but never for
// those named.
func (s *Set) Without(names ...string) *Set {
	out := &Set{}
	for _, t := range s.list() {
		if !slices.Contains(names, t.Name()) {
			out.tools = append(out.tools, t)
		}
	}
	if s.awaiting() {
		out.awaits = []Awaiter{func(ctx context.Context, name string) (Tool, bool) {
			if slices.Contains(names, name) {
				return nil, false
			}
			return s.Await(ctx, name)
		}}
	}
	return out
}

// Only returns a new set of the named tools, in this set's order. An
// unknown name is an error listing the known ones, so a typo in a flag or
// an agent file is caught rather than silently dropping a tool.
func (s *Set) Only(names ...string) (*Set, error) {
	tools := s.list()
	var unknown []string
	for _, n := range names {
		if !slices.ContainsFunc(tools, func(t Tool) bool { return t.Name() == n }) {
			unknown = append(unknown, fmt.Sprintf("%q", n))
		}
	}
	if len(unknown) > 0 {
		word := "tool"
		if len(unknown) > 1 {
			word = "tools"
		}
		return nil, fmt.Errorf("unknown %s %s; known tools: %s", word, strings.Join(unknown, ", "), strings.Join(s.Names(), ", "))
	}
	out := &Set{}
	for _, t := range tools {
		if slices.Contains(names, t.Name()) {
			out.tools = append(out.tools, t)
		}
	}
	return out, nil
}

func (s *Set) awaiting() bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.awaits) > 0
}

// list returns a snapshot of the tools.
func (s *Set) list() []Tool {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.tools)
}
