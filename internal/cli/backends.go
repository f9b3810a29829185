package cli

import (
	"errors"
	"fmt"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/backend/claudecode"
	"github.com/atomic-agent/atomic/internal/backend/codex"
	"github.com/atomic-agent/atomic/internal/backend/copilot"
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
// in the CLI's own terms when given (flags, then the config file); when
// none is, the CLI's own login and config are used untouched.
func (c *common) leadBackend(s *setup) (func(backend.Config) (backend.Session, error), error) {
	name := c.backendName(s)
	if name == backend.Native {
		return nil, nil
	}
	if c.demo {
		return nil, errors.New("--demo runs the native backend; drop --backend " + name)
	}
	bin := firstNonEmpty(c.backendBin, s.file.BackendBin)
	model := firstNonEmpty(c.model, s.file.Model)
	baseURL := firstNonEmpty(c.baseURL, s.file.BaseURL)
	apiKey := s.file.APIKey
	switch name {
	case backend.ClaudeCode:
		return func(cfg backend.Config) (backend.Session, error) {
			cfg.Bin, cfg.Model, cfg.BaseURL, cfg.APIKey = bin, model, baseURL, apiKey
			return claudecode.New(cfg)
		}, nil
	case backend.Codex:
		return func(cfg backend.Config) (backend.Session, error) {
			cfg.Bin, cfg.Model, cfg.BaseURL, cfg.APIKey = bin, model, baseURL, apiKey
			return codex.New(cfg)
		}, nil
	case backend.Copilot:
		return func(cfg backend.Config) (backend.Session, error) {
			cfg.Bin, cfg.Model, cfg.BaseURL, cfg.APIKey = bin, model, baseURL, apiKey
			return copilot.New(cfg)
		}, nil
	}
	return nil, fmt.Errorf("unknown --backend %q (want %s, %s, %s or %s)", name, backend.Native, backend.ClaudeCode, backend.Codex, backend.Copilot)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
