package spawn

import (
	"fmt"

	"github.com/atomic-agent/atomic/internal/backend"
)

// Endpoint is what an agent on an external CLI inherits of the lead to
// reach a model: the base URL and key of the API the CLI speaks, and the
// model it runs when its type names none ("" each: the CLI's own).
type Endpoint struct {
	BaseURL, APIKey, Model string
}

// Inheriting is a tree's CLIs factory (Config.CLIs): every CLI, whichever
// it is, is opened by open with what it inherits for its API, inherit's
// Endpoint: its base URL and key, and its model unless the agent's type
// names one. A native agent inherits the same way through the lead's
// provider and model (Resolve).
func Inheriting(inherit func(api string) (Endpoint, error), open backend.Factory) backend.Factory {
	return func(name string, cfg backend.Config) (backend.Session, error) {
		ep, err := inherit(API(name))
		if err != nil {
			return nil, fmt.Errorf("%s sub-agent: %w", name, err)
		}
		cfg.BaseURL, cfg.APIKey = ep.BaseURL, ep.APIKey
		if cfg.Model == "" {
			cfg.Model = ep.Model
		}
		return open(name, cfg)
	}
}

// API is the model API backend name's CLI speaks: the backends table's,
// openai for a name it does not know.
func API(name string) string {
	if k, ok := backend.Lookup(name); ok && k.API != "" {
		return k.API
	}
	return "openai"
}
