package tools

import (
	"slices"
	"sync"
)

// Roots are the folders added to a workspace while the session runs
// (/add-dir). Workspace is a value copied into every tool set, so the
// copies share one *Roots and read it at each call. Safe for concurrent
// use; a nil *Roots holds none.
type Roots struct {
	mu   sync.RWMutex
	dirs []string
}

// Add adds dir (absolute and clean), once.
func (r *Roots) Add(dir string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.dirs, dir) {
		r.dirs = append(r.dirs, dir)
	}
}

// List returns the added folders, oldest first.
func (r *Roots) List() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.dirs)
}

// Extra returns the workspace's further roots: ExtraRoots and the folders
// added since.
func (w Workspace) Extra() []string {
	added := w.Added.List()
	if len(added) == 0 {
		return w.ExtraRoots
	}
	return append(slices.Clone(w.ExtraRoots), added...)
}
