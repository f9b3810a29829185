package cli

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/claudesettings"
)

// claudeSettings reads the user's Claude Code settings files (see
// package claudesettings) once, at the start of the session, and applies
// their env: the user's and managed files' to Atomic's own process
// (io.Setenv, and s.getenv for lookups made through the session), the
// project's only to the commands the model runs (the workspace's Env).
// Their warnings join the session's; values are never logged.
func (c *common) claudeSettings(io IOStreams, s *setup) (*claudesettings.Settings, error) {
	flagFile := c.settings
	if flagFile != "" && !strings.HasPrefix(strings.TrimSpace(flagFile), "{") && !filepath.IsAbs(flagFile) {
		flagFile = filepath.Join(io.Dir, flagFile)
	}
	cs, err := claudesettings.Load(claudesettings.Places{
		Dir: io.Dir, Home: io.Getenv("HOME"), Managed: claudesettings.ManagedPath(goruntime.GOOS),
		TrustProject: c.trustSettings, Flag: flagFile,
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

// readDenySecrets are the paths of Read deny rules the command sandbox
// keeps from bash like ~/.ssh: those neither inside a folder commands may
// write (which the sandbox lets them read whole) nor holding one (which
// would leave commands unable to read their own workspace's parents).
func readDenySecrets(paths, writable []string) []string {
	var out []string
	for _, p := range paths {
		p = filepath.Clean(p)
		if p == string(filepath.Separator) {
			continue
		}
		overlaps := false
		for _, w := range writable {
			w = filepath.Clean(w)
			if within(w, p) || within(p, w) {
				overlaps = true
				break
			}
		}
		if !overlaps {
			out = append(out, p)
		}
	}
	return out
}

// within reports whether p is dir or below it (both clean).
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// maxHiddenWalk bounds the walk that finds the workspace files a Read deny
// rule covers, so a huge tree does not hold up the start.
const maxHiddenWalk = 200_000

// readDeniedInWorkspace walks the writable folders (not .git, not through
// symlinks) and returns every file or folder denied reports as covered by
// a Read deny rule, for the sandbox to hide from commands. complete is
// false when the walk stopped at maxHiddenWalk entries.
func readDeniedInWorkspace(roots []string, denied func(abs string) bool) (paths []string, complete bool) {
	seen := 0
	var walk func(dir string) bool
	walk = func(dir string) bool {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return true
		}
		for _, e := range entries {
			if seen++; seen > maxHiddenWalk {
				return false
			}
			p := filepath.Join(dir, e.Name())
			if denied(p) {
				paths = append(paths, p)
				continue
			}
			if e.IsDir() && e.Name() != ".git" && !walk(p) {
				return false
			}
		}
		return true
	}
	for _, r := range roots {
		if !walk(filepath.Clean(r)) {
			return paths, false
		}
	}
	return paths, true
}

// settingsModel is the model Claude Code settings name, when it applies:
// neither --model nor the config file names one, and the provider is
// Anthropic (a Claude model id means nothing to another). Claude Code's
// aliases (sonnet, opus, haiku, opusplan, default) name no one model
// Atomic can send: Atomic's default stays, and warning says so.
func settingsModel(s *setup, flag, provider string) (model, warning string) {
	m := s.claudeModel
	if m == "" || flag != "" || s.file.Model != "" || provider != "anthropic" {
		return "", ""
	}
	switch low, _, _ := strings.Cut(strings.ToLower(m), "["); low {
	case "sonnet", "opus", "haiku", "opusplan", "default", "best":
		return "", "Claude Code settings " + s.claudeModelSource + ": model " + m + " is an alias of Claude Code's; Atomic keeps its default model (give --model or a full model id)"
	}
	return m, ""
}
