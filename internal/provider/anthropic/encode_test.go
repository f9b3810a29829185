package anthropic

import (
	"bytes"
	"context"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

func encodeTestRequest() provider.Request {
	return provider.Request{
		System: "You are <a> sub-agent & you answer: 日本語 \"quoted\"",
		Messages: []provider.Message{
			{Role: provider.RoleUser, Parts: []provider.Part{{Text: "TASK-1 <b>"}}},
			{Role: provider.RoleAssistant, Parts: []provider.Part{{Text: "calling"}, {ToolCall: &provider.ToolCall{ID: "c1", Name: "nested", Input: []byte(`{"items":[{"a":"<"}]}`)}}}},
			{Role: provider.RoleUser, Parts: []provider.Part{{ToolResult: &provider.ToolResult{ToolCallID: "c1", Content: "done & dusted"}}}},
		},
		Tools: cacheTestTools()[1:],
	}
}

func TestPreEncodedParamsSendTheBytesTheSDKMakes(t *testing.T) {
	p := &Provider{model: "m", maxTokens: 100}
	params, err := p.params(encodeTestRequest())
	if err != nil {
		t.Fatal(err)
	}
	want, err := params.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	pre := preEncoded(params)
	for i := range 2 { // every attempt sends the same bytes
		got, err := pre.MarshalJSON()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("attempt %d sent %s (%v)\nwant %s", i, got, err, want)
		}
	}
	if pre.Model != params.Model || len(pre.Messages) != len(params.Messages) || len(pre.System) != 1 || pre.MaxTokens != 100 {
		t.Fatalf("pre-encoded params lost their fields for readers: %+v", pre)
	}
}

// BenchmarkStackOfWaitingStreams reports the goroutine stack each of 200
// streams holds while it waits for the model's answer, as 1,000 sub-agents
// do for a second.
func BenchmarkStackOfWaitingStreams(b *testing.B) {
	const n = 200
	sc, err := loopback.ParseScenario([]byte("rules:\n  - respond: {text: ok, delay_ms: 400}\n"))
	if err != nil {
		b.Fatal(err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = n
	defer tr.CloseIdleConnections()
	p, err := New(Config{APIKey: "k", BaseURL: srv.URL(), Model: "m", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(1)})
	if err != nil {
		b.Fatal(err)
	}
	req := encodeTestRequest()
	var perStream float64
	for b.Loop() {
		var before, during runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if _, err := p.Stream(context.Background(), req, nil); err != nil {
					b.Error(err)
				}
			})
		}
		time.Sleep(250 * time.Millisecond) // all are sent and waiting
		runtime.ReadMemStats(&during)
		wg.Wait()
		perStream = float64(during.StackInuse-before.StackInuse) / n
	}
	b.ReportMetric(perStream, "stack-B/stream")
}
