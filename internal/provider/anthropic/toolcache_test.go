package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

// cacheTestTools are the suite's awkward definitions.
func cacheTestTools() []provider.ToolSpec { return providertest.AwkwardTools() }

// uncachedBody is the request body as made before the cache: every tool
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

// sameJSON reports whether a and b encode the same value.
func sameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(va, vb)
}

func TestRequestsWithCachedToolsSendWhatUncachedOnesSent(t *testing.T) {
	p := &Provider{model: "m", maxTokens: 100}
	req := provider.Request{System: "sys", Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}}}}, Tools: cacheTestTools()}
	want := uncachedBody(t, p, req)
	first := body(t, p, req) // fills the cache
	if !sameJSON(t, first, want) {
		t.Fatalf("request sent\n%s\nwant\n%s", first, want)
	}
	for i := range 3 {
		// The SDK adds a schema's other keywords in map order; from the
		// cache every request sends the same bytes (a stable prefix for
		// the API's prompt cache).
		if got := body(t, p, req); !bytes.Equal(got, first) {
			t.Fatalf("request %d sent\n%s\nthe first sent\n%s", i, got, first)
		}
	}
	if len(p.tools.m) != len(req.Tools) {
		t.Fatalf("%d tools cached, want %d", len(p.tools.m), len(req.Tools))
	}
}

func TestToolsWithoutExtraKeywordsAreSentByteForByte(t *testing.T) {
	p := &Provider{model: "m", maxTokens: 100}
	tools := cacheTestTools()[1:] // all but bash, whose schema has $defs and additionalProperties
	tools = append(tools, provider.ToolSpec{Name: "html", Description: "a <b> & 日本", InputSchema: json.RawMessage(`{"type":"object","required":["z","a"],"properties":{"z":{"type":"string"},"a":{"type":"string"}}}`)})
	req := provider.Request{Tools: tools}
	want := uncachedBody(t, p, req)
	for i := range 3 {
		if got := body(t, p, req); !bytes.Equal(got, want) {
			t.Fatalf("request %d sent\n%s\nwant\n%s", i, got, want)
		}
	}
}

func TestAChangedToolDefinitionIsSentAsChanged(t *testing.T) {
	p := &Provider{model: "m", maxTokens: 100}
	tools := cacheTestTools()
	body(t, p, provider.Request{Tools: tools})
	tools[0].Description = "a new description"
	tools[1].InputSchema = json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
	req := provider.Request{Tools: tools}
	if got, want := body(t, p, req), uncachedBody(t, p, req); !sameJSON(t, got, want) {
		t.Fatalf("after the change the request sent\n%s\nwant\n%s", got, want)
	}
}

func TestABrokenToolSchemaIsReportedEveryTime(t *testing.T) {
	p := &Provider{model: "m", maxTokens: 100}
	for range 2 {
		_, err := p.params(provider.Request{Tools: []provider.ToolSpec{{Name: "bad", InputSchema: json.RawMessage(`{"type":"string"}`)}}})
		if err == nil {
			t.Fatal("a tool whose schema is not an object was accepted")
		}
	}
}

func TestCachedToolsKeepTheirNameForReaders(t *testing.T) {
	p := &Provider{model: "m", maxTokens: 100}
	params, err := p.params(provider.Request{Tools: cacheTestTools()})
	if err != nil {
		t.Fatal(err)
	}
	if got := params.Tools[0].GetName(); got == nil || *got != "bash" {
		t.Fatalf("tool name = %v, want bash", got)
	}
}

// BenchmarkRequestWithTenTools is what building and encoding one request's
// tools costs, per request of every agent.
func BenchmarkRequestWithTenTools(b *testing.B) {
	p := &Provider{model: "m", maxTokens: 100}
	req := provider.Request{System: "sys", Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}}}}, Tools: tenTools()}
	b.ReportAllocs()
	for b.Loop() {
		body(b, p, req)
	}
}

func tenTools() []provider.ToolSpec {
	var tools []provider.ToolSpec
	for i := range 10 {
		tools = append(tools, provider.ToolSpec{Name: fmt.Sprint("tool", i), Description: "Does a thing with files in the workspace, and says what it did.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the file, relative to the workspace"},"limit":{"type":"integer","minimum":1},"mode":{"enum":["a","b","c"]}},"required":["path"],"additionalProperties":false}`)})
	}
	return tools
}
