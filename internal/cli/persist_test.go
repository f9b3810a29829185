package cli

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/anthropic"
	"github.com/atomic-agent/atomic/internal/provider/demo"
	"github.com/atomic-agent/atomic/internal/testkit"
)

var hiRequest = provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}}}}}

// beginWatch is a transport that notes whether the store had begun when
// the request was handed to it and when its answer came back.
type beginWatch struct {
	begun                 *atomic.Bool
	atRequest, atResponse atomic.Bool
	base                  http.RoundTripper
}

func (w *beginWatch) RoundTrip(r *http.Request) (*http.Response, error) {
	w.atRequest.Store(w.begun.Load())
	resp, err := w.base.RoundTrip(r)
	w.atResponse.Store(w.begun.Load())
	return resp, err
}

func TestTheStoreBeginsOnceTheFirstRequestIsWrittenNotWhileItIsBuilt(t *testing.T) {
	srv := testkit.Loopback(t, `rules: [{respond: {text: hi, delay_ms: 50}}]`)
	var begun atomic.Bool
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	watch := &beginWatch{begun: &begun, base: tr}
	prov, err := anthropic.New(anthropic.Config{APIKey: "k", Model: "m", BaseURL: srv.URL(), HTTPClient: &http.Client{Transport: watch}})
	if err != nil {
		t.Fatal(err)
	}
	p := &beginOnRequest{Provider: prov, begin: func() { begun.Store(true) }}
	if _, err := p.Stream(context.Background(), hiRequest, nil); err != nil {
		t.Fatal(err)
	}
	if watch.atRequest.Load() {
		t.Error("the store began before the first request was written")
	}
	if !watch.atResponse.Load() {
		t.Error("the store had not begun when the first answer came")
	}
}

func TestAProviderThatSendsNoHTTPRequestBeginsTheStoreWhenItsFirstAnswerEnds(t *testing.T) {
	var began int
	p := &beginOnRequest{Provider: demo.New(), begin: func() { began++ }}
	if _, err := p.Stream(context.Background(), hiRequest, func(provider.Chunk) {}); err != nil {
		t.Fatal(err)
	}
	if began == 0 {
		t.Fatal("the store did not begin after an answer made without HTTP")
	}
}
