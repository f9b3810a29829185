package cli

import (
	"errors"
	"fmt"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/backend/claudecode"
	"github.com/atomic-agent/atomic/internal/backend/codex"
	"github.com/atomic-agent/atomic/internal/backend/copilot"
	"github.com/atomic-agent/atomic/internal/backend/opencode"
	"github.com/atomic-agent/atomic/internal/config"
	"github.com/atomic-agent/atomic/internal/spawn"
)

// backendName is the chosen backend: --backend, else the config file's,
// else native.
func (c *common) backendName(s *setup) string {
	switch {
	case c.backend != "":
		return c.backend
	case s.file.Backend != "":
		return s.file.Backend
	}
	return backend.Native
}

// leadBackend returns how to build the lead's session on the chosen
// backend, nil for the native loop. Atomic's provider settings pass through
// in the CLI's own terms when given (flags, then the config file), the base
// URL normalised for the CLI's API as the native providers normalise it;
// when none is, the CLI's own login and config are used untouched.
func (c *common) leadBackend(s *setup) (func(backend.Config) (backend.Session, error), error) {
	name := c.backendName(s)
	if name == backend.Native {
		return nil, nil
	}
	if _, err := openBackend(name, backend.Config{}, true); err != nil {
		return nil, err // an unknown name is named first, --demo or not
	}
	if c.demo {
		return nil, errors.New("--demo runs the native backend; drop --backend " + name)
	}
	bin := firstNonEmpty(c.backendBin, s.file.BackendBin)
	model := firstNonEmpty(c.model, s.file.Model)
	apiKey := s.file.APIKey
	baseURL, err := config.BaseURLFor(apiOf(name), firstNonEmpty(c.baseURL, s.file.BaseURL))
	if err != nil {
		return nil, fmt.Errorf("--backend %s: %w", name, err)
	}
	fallback, err := c.cliFallback(name, model, s)
	if err != nil {
		return nil, err
	}
	return func(cfg backend.Config) (backend.Session, error) {
		cfg.Bin, cfg.Model, cfg.BaseURL, cfg.APIKey, cfg.FallbackModel = bin, model, baseURL, apiKey, fallback
		return openBackend(name, cfg, false)
	}, nil
}

// cliFallback is --fallback-model for an external-CLI lead: Claude Code
// takes it as its own flag; another CLI has none, which one warning says
// rather than ignoring the flag silently.
func (c *common) cliFallback(name, model string, s *setup) (string, error) {
	switch {
	case c.fallbackModel == "":
		return "", nil
	case name != backend.ClaudeCode:
		s.warnings = append(s.warnings, fmt.Sprintf("--fallback-model %s is ignored: the %s CLI has no fallback model", c.fallbackModel, name))
		return "", nil
	case c.fallbackModel == model:
		return "", fmt.Errorf("--fallback-model %s is the model itself: name another", c.fallbackModel)
	}
	return c.fallbackModel, nil
}

// openers start a session on each external backend of the table
// (backend.Known): the one thing of a backend the table cannot hold, since
// the adapters import it.
var openers = map[string]func(backend.Config) (backend.Session, error){
	backend.ClaudeCode: func(cfg backend.Config) (backend.Session, error) { return claudecode.New(cfg) },
	backend.Codex:      func(cfg backend.Config) (backend.Session, error) { return codex.New(cfg) },
	backend.OpenCode:   func(cfg backend.Config) (backend.Session, error) { return opencode.New(cfg) },
	backend.Copilot:    func(cfg backend.Config) (backend.Session, error) { return copilot.New(cfg) },
}

// openBackend starts a session on the named external backend; with check
// set it only reports whether the name is known.
func openBackend(name string, cfg backend.Config, check bool) (backend.Session, error) {
	open, ok := openers[name]
	if !ok || !backend.External(name) {
		return nil, fmt.Errorf("unknown backend %q (want %s)", name, backend.Names())
	}
	if check {
		return nil, nil
	}
	return open(cfg)
}

// treeBackends builds the sessions of sub-agents whose agent type names
// another backend (a mixed tree). Every CLI, whichever it is, inherits the
// same way (cliSettings): the endpoint and key of its own API, and the
// lead's model unless its agent file names one. The base URL is normalised
// for the CLI's API as the native providers normalise theirs. The CLIs are
// found on PATH.
func (c *common) treeBackends(ios IOStreams, s *setup) backend.Factory {
	return spawn.Inheriting(func(api string) (spawn.Endpoint, error) {
		ps := cliSettings(api, c.leadSettings(s), s, ios.Getenv)
		base, err := config.BaseURLFor(api, ps.BaseURL)
		return spawn.Endpoint{BaseURL: base, APIKey: ps.APIKey, Model: ps.Model}, err
	}, func(name string, cfg backend.Config) (backend.Session, error) { return openBackend(name, cfg, false) })
}

// leadSettings are the model, endpoint and key the lead was given on the
// command line or in the config file (not the providers' defaults), with
// the API the lead speaks.
func (c *common) leadSettings(s *setup) config.ProviderSettings {
	ps := config.ProviderSettings{Provider: s.ps.Provider, Model: firstNonEmpty(c.model, s.file.Model),
		BaseURL: firstNonEmpty(c.baseURL, s.file.BaseURL), APIKey: s.ps.APIKey}
	if name := c.backendName(s); name != backend.Native {
		ps.Provider, ps.APIKey = apiOf(name), s.file.APIKey
	}
	return ps
}

// apiOf is the model API a backend's CLI speaks (spawn.API).
func apiOf(name string) string { return spawn.API(name) }

// cliSettings picks the provider settings a CLI speaking api gets in a
// tree whose lead has the settings lead:
//   - the lead's resolved settings when the lead speaks api;
//   - else the environment's (ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY,
//     or OPENAI_BASE_URL and OPENAI_API_KEY);
//   - else the lead's endpoint (--base-url) with its key, when it names
//     one: a user who points the run at one server (a proxy speaking both
//     APIs) means every agent;
//   - else the config file's when it names that provider;
//   - else none: the CLI's own login.
//
// The model is the lead's (--model or the config file's) whenever the
// chosen settings name none, so that a sub-agent whose file names no
// model runs the model the user asked for, on every backend (OpenCode,
// given an endpoint, cannot run without one).
func cliSettings(api string, lead config.ProviderSettings, s *setup, getenv func(string) string) config.ProviderSettings {
	var ps config.ProviderSettings
	env := map[string][2]string{"anthropic": {"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"}, "openai": {"OPENAI_BASE_URL", "OPENAI_API_KEY"}}[api]
	switch u, k := getenv(env[0]), getenv(env[1]); {
	case s.ps.Provider == api:
		ps = config.ProviderSettings{Model: s.ps.Model, BaseURL: s.ps.BaseURL, APIKey: s.ps.APIKey}
	case u != "" || k != "":
		ps = config.ProviderSettings{BaseURL: u, APIKey: k}
	case lead.BaseURL != "":
		ps = config.ProviderSettings{BaseURL: lead.BaseURL, APIKey: lead.APIKey}
	case s.file.Provider == api:
		ps = config.ProviderSettings{Model: s.file.Model, BaseURL: s.file.BaseURL, APIKey: s.file.APIKey}
	}
	if ps.Model == "" {
		ps.Model = lead.Model
	}
	return ps
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
