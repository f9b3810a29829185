package tools

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/atomic-agent/atomic/internal/provider"
)

// Set is an ordered registry of tools, keyed by name. The order is the
// order tools are offered to the model. A Set is safe for concurrent use.
type Set struct {
	mu    sync.RWMutex
	tools []Tool
}

// NewSet returns a set holding tools in order; a later tool with the same
// name as an earlier one replaces it.
func NewSet(tools ...Tool) *Set {
	s := &Set{}
	for _, t := range tools {
		s.Add(t)
	}
	return s
}

// Add appends t, or replaces the tool of the same name in place.
func (s *Set) Add(t Tool) {
	if t == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, old := range s.tools {
		if old.Name() == t.Name() {
			s.tools[i] = t
			return
		}
	}
	s.tools = append(s.tools, t)
}

// Get returns the tool called name.
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
	return nil, false
}

// Names returns the tool names in order.
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
func (s *Set) Without(names ...string) *Set {
	out := &Set{}
	for _, t := range s.list() {
		if !slices.Contains(names, t.Name()) {
			out.tools = append(out.tools, t)
		}
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

// list returns a snapshot of the tools.
func (s *Set) list() []Tool {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.tools)
}
