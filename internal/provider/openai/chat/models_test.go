package chat

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
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
	p, err := New(Config{APIKey: "k", BaseURL: srv.URL(), Model: "gpt-x", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(1)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestListModelsReturnsTheServicesModels(t *testing.T) {
	p := modelsProvider(t, "api_key: k\nmodels: [gpt-x, gpt-y]\nrules: [{respond: {text: fine}}]\n")
	ids, err := p.ListModels(context.Background())
	if err != nil || !slices.Equal(ids, []string{"gpt-x", "gpt-y"}) {
		t.Fatalf("ListModels = %q, %v; want gpt-x, gpt-y", ids, err)
	}
}

func TestListModelsSaysWhyItCouldNotList(t *testing.T) {
	p := modelsProvider(t, "api_key: k\nrules: [{respond: {text: fine}}]\n")
	_, err := p.ListModels(context.Background())
	if err == nil || !strings.Contains(err.Error(), "listing models") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("ListModels on a server with no list: %v", err)
	}
}
