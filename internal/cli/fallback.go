package cli

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/atomic-agent/atomic/internal/provider"
)

// fallbackProvider is Claude Code's --fallback-model: when the model is
// overloaded (529, or 503) after the provider's own retries, the request
// goes again to the fallback model, and so does every later request that
// would have gone to the overloaded one. A request for another model (an
// agent type's own) is left alone.
type fallbackProvider struct {
	provider.Provider
	fallback string
	switched atomic.Bool
}

func (f *fallbackProvider) Stream(ctx context.Context, req provider.Request, on func(provider.Chunk)) (*provider.Response, error) {
	ours := req.Model == "" || req.Model == f.Provider.Model()
	if ours && f.switched.Load() {
		req.Model = f.fallback
	}
	resp, err := f.Provider.Stream(ctx, req, on)
	if err == nil || !ours || req.Model == f.fallback || !overloaded(err) {
		return resp, err
	}
	f.switched.Store(true)
	on(provider.Chunk{Kind: provider.ChunkRetry, Attempt: 1, MaxAttempts: 1,
		Reason: "overloaded: falling back to " + f.fallback, Err: err}) // what streamed is void
	req.Model = f.fallback
	return f.Provider.Stream(ctx, req, on)
}

// overloaded reports an error that says the model is overloaded, from a
// request that can be sent again (no tool call had streamed).
func overloaded(err error) bool {
	var se *provider.StreamError
	if errors.As(err, &se) && se.AfterToolCall {
		return false
	}
	var api *provider.APIError
	return errors.As(err, &api) && (api.StatusCode == 529 || api.StatusCode == 503 || api.Type == "overloaded_error")
}
