package cli

import (
	"path/filepath"
	"strings"

	"github.com/atomic-agent/atomic/internal/dotdirs"
	"github.com/atomic-agent/atomic/internal/spawn"
)

// untrustedAgentHooks takes the hooks out of the agent types defined in
// the project's folders (repository code, which any clone can plant) and
// returns those files' paths; the user's own agent files keep theirs.
func untrustedAgentHooks(types *spawn.Registry, dirs []dotdirs.Dir) []string {
	var held []string
	for _, t := range types.All() {
		if t.Hooks.Count() == 0 || !inProject(t.Source, dirs) {
			continue
		}
		t.Hooks = nil
		types.Add(t)
		held = append(held, t.Source)
	}
	return held
}

// inProject reports whether path lies in one of dirs of project scope.
func inProject(path string, dirs []dotdirs.Dir) bool {
	for _, d := range dirs {
		if d.Scope != dotdirs.ProjectScope {
			continue
		}
		if rel, err := filepath.Rel(d.Path, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
