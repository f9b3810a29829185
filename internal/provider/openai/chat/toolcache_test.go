package chat

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

// cacheTestTools are the suite's awkward definitions.
func cacheTestTools() []provider.ToolSpec { return providertest.AwkwardTools() }

// uncachedBody is the request body as made without the cache: every tool
// translated for this request alone.
func uncachedBody(t testing.TB, p *Provider, req provider.Request) []byte {
	t.Helper()
	params, err := p.params(provider.Request{Model: req.Model, System: req.System, Messages: req.Messages})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range req.Tools {
		tp, err := toolParam(spec)
		if err != nil {
			t.Fatal(err)
		}
		params.Tools = append(params.Tools, tp)
	}
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func body(t testing.TB, p *Provider, req provider.Request) []byte {
	t.Helper()
	params, err := p.params(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRequestsWithCachedToolsSendByteForByteWhatUncachedOnesSent(t *testing.T) {
	p := &Provider{model: "m", maxTokens: 100}
	req := provider.Request{System: "sys", Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}}}}, Tools: cacheTestTools()}
	want := uncachedBody(t, p, req)
	for i := range 3 { // the first fills the cache, the others read it
		if got := body(t, p, req); !bytes.Equal(got, want) {
			t.Fatalf("request %d sent\n%s\nwant\n%s", i, got, want)
		}
	}
	if len(p.tools.m) != len(req.Tools) {
		t.Fatalf("%d tools cached, want %d", len(p.tools.m), len(req.Tools))
	}
}

func TestEachToolDefinitionIsEncodedOncePerProvider(t *testing.T) {
	p := &Provider{model: "m"}
	req := provider.Request{Tools: cacheTestTools()}
	body(t, p, req)
	first := p.tools.m["bash"].param.OfFunction
	body(t, p, req)
	if again := p.tools.m["bash"].param.OfFunction; again != first {
		t.Fatal("the second request encoded the bash tool again")
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := p.params(req); err != nil {
			t.Fatal(err)
		}
	})
	// Translating the four definitions parses four schemas into maps:
	// dozens of allocations; from the cache it is the tools slice.
	if allocs > 4 {
		t.Fatalf("building a request of cached tools took %.0f allocations, want at most 4", allocs)
	}
}

func TestAChangedToolSetIsEncodedAgain(t *testing.T) {
	p := &Provider{model: "m"}
	tools := cacheTestTools()
	body(t, p, provider.Request{Tools: tools})
	tools[0].Description = "a new description"
	tools[1].InputSchema = json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
	tools = append(tools, provider.ToolSpec{Name: "added", Description: "new", InputSchema: json.RawMessage(`{"type":"object"}`)})
	req := provider.Request{Tools: tools}
	got, want := body(t, p, req), uncachedBody(t, p, req)
	if !bytes.Equal(got, want) {
		t.Fatalf("after the change the request sent\n%s\nwant\n%s", got, want)
	}
	for _, s := range []string{"a new description", `"x":{"type":"string"}`, `"name":"added"`} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("the request after the change lacks %s:\n%s", s, got)
		}
	}
}

func TestABadSchemaIsAnErrorEveryTime(t *testing.T) {
	p := &Provider{model: "m"}
	req := provider.Request{Tools: []provider.ToolSpec{{Name: "bad", InputSchema: json.RawMessage(`[1]`)}}}
	for i := range 2 {
		if _, err := p.params(req); err == nil {
			t.Fatalf("request %d: a schema that is not an object was accepted", i)
		}
	}
}
