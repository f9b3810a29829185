package runtime

import (
	"os"

	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/tools"
)

// hookRunner is the run's hooks as its commands run: in the workspace,
// under the same sandbox, with the same environment (no provider keys or
// Atomic secrets; the project's settings env when trusted). Without
// settings hooks it runs none, but an agent file's hooks join it.
func hookRunner(cfg Config) *hooks.Runner {
	ws := cfg.Workspace
	mode := func() string {
		if cfg.Gate == nil {
			return "default"
		}
		return string(cfg.Gate.Mode())
	}
	return hooks.Base(hooks.Options{Config: cfg.Hooks, Dir: ws.Root, Sandbox: ws.Sandbox, Mode: mode,
		Env: append(tools.EnvFor(os.Environ()), tools.EnvFor(ws.Env)...)})
}
