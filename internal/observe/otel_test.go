package observe

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestOTLPClientReadsTheStandardVariables(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		signal  string
		url     string
		gzip    bool
		header  string
		wantErr string
	}{
		{name: "the base endpoint gets the signal's path", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"},
			signal: "traces", url: "http://c:4318/v1/traces"},
		{name: "a signal's own endpoint is used as given", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318",
			"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "https://m:1/custom"}, signal: "metrics", url: "https://m:1/custom"},
		{name: "headers and gzip", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318",
			"OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b, x=1", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "gzip"},
			signal: "traces", url: "http://c:4318/v1/traces", gzip: true, header: "a b"},
		{name: "grpc is refused by name", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			signal: "traces", wantErr: "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported"},
		{name: "a bad timeout is refused by name", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TIMEOUT": "soon"},
			signal: "metrics", wantErr: `OTEL_EXPORTER_OTLP_TIMEOUT="soon"`},
		{name: "an endpoint that is not a URL is refused", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "c:4318"},
			signal: "traces", wantErr: "want an http:// or https:// URL"},
		{name: "a header without a value is refused", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "novalue"},
			signal: "traces", wantErr: `"novalue" is not name=value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newOTLPClient(func(k string) string { return tt.env[k] }, tt.signal)
			if tt.wantErr != "" {
				if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.wantErr)) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.url != tt.url || c.gzip != tt.gzip || c.headers.Get("api-key") != tt.header {
				t.Errorf("client %+v: want url %s, gzip %v, api-key %q", c, tt.url, tt.gzip, tt.header)
			}
		})
	}
}

func TestOTelParentsACLIsOwnSubagentsUnderItsSpanAndMarksFailures(t *testing.T) {
	col := testkit.NewCollector(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col.URL(), "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"}
	if !OTelEnabled(func(k string) string { return env[k] }) {
		t.Fatal("OTelEnabled is false with an endpoint")
	}
	sink := NewOTel(func(k string) string { return env[k] })
	b := bus.New()
	obs := Watch(b, func() time.Time { return at(9) }, nil, sink)
	for _, e := range flat(leadStart(0), spawn(1, "lead", "claude-1", "c1", "reviewer", "claude-code", false),
		spawn(2, "claude-1", "claude-1/explore-1", "c2", "Explore", "claude-code", false),
		finish(3, "claude-1", "claude-1/explore-1", "c2", false, 1, event.Usage{}),
		finish(4, "lead", "claude-1", "c1", true, 2, event.Usage{InputTokens: 5, OutputTokens: 7}), leadComplete(5, false)) {
		b.Emit(e)
	}
	if err := obs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sink.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if bad := col.Bad(); len(bad) > 0 {
		t.Fatalf("the collector could not decode: %v", bad)
	}
	byName := map[string][]byte{}
	parent := map[string][]byte{}
	for _, s := range col.Spans() {
		byName[s.Name] = s.SpanId
		parent[s.Name] = s.ParentSpanId
		if s.Name == "invoke_agent Explore" && (s.Status.GetCode() != 2 || s.Status.GetMessage() != "boom") {
			t.Errorf("the failed agent's span status: %v, want error boom", s.Status)
		}
		if s.Name == "invoke_agent reviewer" && testkit.Attr(s.Attributes, "gen_ai.usage.output_tokens") != "7" {
			t.Errorf("reviewer's output tokens: %q", testkit.Attr(s.Attributes, "gen_ai.usage.output_tokens"))
		}
	}
	if len(byName) != 3 {
		t.Fatalf("spans %v, want lead, reviewer and Explore", byName)
	}
	if !bytes.Equal(parent["invoke_agent reviewer"], byName["invoke_agent lead"]) ||
		!bytes.Equal(parent["invoke_agent Explore"], byName["invoke_agent reviewer"]) || len(parent["invoke_agent lead"]) != 0 {
		t.Errorf("parents: %x, spans %x: want Explore under reviewer under lead", parent, byName)
	}
	errs := col.Metrics()["atomic.agent.errors"].GetSum().GetDataPoints()
	if len(errs) != 1 || errs[0].GetAsInt() != 1 || testkit.Attr(errs[0].Attributes, "atomic.backend") != "claude-code" {
		t.Errorf("atomic.agent.errors: %v, want 1 for Explore on claude-code", errs)
	}
}

func TestOTelWithAnUnsupportedProtocolReportsItAndExportsNothing(t *testing.T) {
	col := testkit.NewCollector(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col.URL(), "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
	sink := NewOTel(func(k string) string { return env[k] })
	b := bus.New()
	obs := Watch(b, func() time.Time { return at(2) }, nil, sink)
	b.Emit(leadStart(0))
	err := obs.Close()
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("OTEL_EXPORTER_OTLP_PROTOCOL=grpc")) {
		t.Errorf("Close: %v, want the protocol named", err)
	}
	if err := sink.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown of a sink that never started: %v", err)
	}
	if len(col.Spans()) != 0 {
		t.Errorf("spans were exported: %v", col.Spans())
	}
}
