package anthropic

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

// modelsProvider is a provider on a loopback server serving scenario sc.
func modelsProvider(t *testing.T, sc string) *Provider {
	t.Helper()
	parsed, err := loopback.ParseScenario([]byte(sc))
	if err != nil {
		t.Fatal(err)
	}
	srv := loopback.New(parsed)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	p, err := New(Config{APIKey: "k", BaseURL: srv.URL(), Model: "claude-x", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(1)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestListModelsReturnsTheServicesModels(t *testing.T) {
	p := modelsProvider(t, "api_key: k\nmodels: [claude-x, claude-y]\nrules: [{respond: {text: fine}}]\n")
	ids, err := p.ListModels(context.Background())
	if err != nil || !slices.Equal(ids, []string{"claude-x", "claude-y"}) {
		t.Fatalf("ListModels = %q, %v; want claude-x, claude-y", ids, err)
	}
}

func TestListModelsSaysWhyItCouldNotList(t *testing.T) {
	p := modelsProvider(t, "api_key: k\nrules: [{respond: {text: fine}}]\n")
	_, err := p.ListModels(context.Background())
	if err == nil || !strings.Contains(err.Error(), "listing models") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("ListModels on a server with no list: %v", err)
	}
}

// wrapped is a provider that says what it wraps, as the CLI's store
// opener does.
type wrapped struct{ provider.Provider }

func (w wrapped) Unwrap() provider.Provider { return w.Provider }

func TestProviderListModelsLooksThroughAWrapperAndRefusesOneThatCannotList(t *testing.T) {
	p := modelsProvider(t, "api_key: k\nmodels: [claude-x]\nrules: [{respond: {text: fine}}]\n")
	ids, err := provider.ListModels(context.Background(), wrapped{p})
	if err != nil || !slices.Equal(ids, []string{"claude-x"}) {
		t.Fatalf("ListModels through a wrapper = %q, %v", ids, err)
	}
	if _, err := provider.ListModels(context.Background(), struct{ provider.Provider }{p}); !errors.Is(err, provider.ErrNoModelList) {
		t.Errorf("a wrapper that hides its provider: %v, want ErrNoModelList", err)
	}
	if _, err := provider.ListModels(context.Background(), nil); !errors.Is(err, provider.ErrNoModelList) {
		t.Errorf("no provider (a CLI lead): %v, want ErrNoModelList", err)
	}
}
