package cli

import (
	goruntime "runtime"
	"slices"

	"github.com/atomic-agent/atomic/internal/claudesettings"
)

// claudeSettings reads the user's Claude Code settings files (see
// package claudesettings) once, at the start of the session, and applies
// their env: the user's and managed files' to Atomic's own process
// (io.Setenv, and s.getenv for lookups made through the session), the
// project's only to the commands the model runs (the workspace's Env).
// Their warnings join the session's; values are never logged.
func (c *common) claudeSettings(io IOStreams, s *setup) (*claudesettings.Settings, error) {
	cs, err := claudesettings.Load(claudesettings.Places{
		Dir: io.Dir, Home: io.Getenv("HOME"), Managed: claudesettings.ManagedPath(goruntime.GOOS),
	})
	if err != nil {
		return nil, err
	}
	s.warnings = append(s.warnings, cs.Warnings...)
	if len(cs.ProcessEnv) == 0 {
		return cs, nil
	}
	for _, k := range sortedKeys(cs.ProcessEnv) {
		if io.Setenv != nil {
			if err := io.Setenv(k, cs.ProcessEnv[k]); err != nil {
				s.warnings = append(s.warnings, "Claude Code settings env "+k+": "+err.Error())
			}
		}
	}
	base := io.Getenv
	s.getenv = func(k string) string {
		if v, ok := cs.ProcessEnv[k]; ok {
			return v
		}
		return base(k)
	}
	return cs, nil
}

// envList is env as NAME=value entries, in name order.
func envList(env map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(env) {
		out = append(out, k+"="+env[k])
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
