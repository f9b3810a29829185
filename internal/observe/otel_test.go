package observe

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

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
		if !strings.HasPrefix(s.Name, "invoke_agent ") {
			continue // the task calls' spans
		}
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

// Each model request of Atomic's loop and each tool call is a span under
// its agent's span, with the GenAI conventions' attributes.
func TestOTelExportsASpanPerModelCallAndPerToolCallUnderItsAgentsSpan(t *testing.T) {
	col := testkit.NewCollector(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col.URL()}
	sink := NewOTel(func(k string) string { return env[k] })
	b := bus.New()
	obs := Watch(b, func() time.Time { return at(9) }, nil, sink)
	call := func(sec float64, agent string, in, out int64, stop event.StopReason) event.Event {
		return ev(event.UsageUpdate, sec, agent, "", "", event.UsageUpdateData{Delta: true, Usage: event.Usage{InputTokens: in, OutputTokens: out},
			Call: &event.ModelCall{Model: "claude-x", Provider: "anthropic", Start: at(sec - 0.5), StopReason: stop,
				Usage: event.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: 40}}})
	}
	for _, e := range flat(leadStart(0), call(1, "lead", 100, 10, event.StopToolUse),
		spawn(1, "lead", "general-purpose-1", "c1", "general-purpose", "native", false),
		ev(event.UsageUpdate, 1.8, "general-purpose-1", "lead", "", event.UsageUpdateData{Delta: true, Usage: event.Usage{InputTokens: 7},
			Call: &event.ModelCall{Model: "claude-x", Provider: "anthropic", Start: at(1.2)}}),
		ev(event.ToolStart, 2, "general-purpose-1", "lead", "r1", event.ToolStartData{Name: "read"}),
		ev(event.ToolComplete, 2.5, "general-purpose-1", "lead", "r1", event.ToolCompleteData{Name: "read", Success: false, Error: "no such file\nmore"}),
		finish(3, "lead", "general-purpose-1", "c1", true, 0, event.Usage{}),
		call(4, "lead", 200, 20, event.StopEndTurn), leadComplete(5, false)) {
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
	ids := map[string][]byte{}
	var chats, tools []*tracepb.Span
	for _, s := range col.Spans() {
		switch {
		case strings.HasPrefix(s.Name, "invoke_agent "):
			ids[testkit.Attr(s.Attributes, "gen_ai.agent.id")] = s.SpanId
		case s.Name == "chat claude-x":
			chats = append(chats, s)
		case strings.HasPrefix(s.Name, "execute_tool "):
			tools = append(tools, s)
		default:
			t.Errorf("unexpected span %q", s.Name)
		}
	}
	if len(chats) != 3 || len(tools) != 2 {
		t.Fatalf("%d chat and %d tool spans, want 3 and 2", len(chats), len(tools))
	}
	for _, s := range chats {
		agent := testkit.Attr(s.Attributes, "gen_ai.agent.id")
		if !bytes.Equal(s.ParentSpanId, ids[agent]) || len(s.ParentSpanId) == 0 {
			t.Errorf("chat span of %s is not under its agent's span", agent)
		}
		for k, want := range map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic", "gen_ai.system": "anthropic", "gen_ai.request.model": "claude-x"} {
			if got := testkit.Attr(s.Attributes, k); got != want {
				t.Errorf("chat span of %s: %s = %q, want %q", agent, k, got, want)
			}
		}
	}
	first := chats[0]
	if testkit.Attr(first.Attributes, "gen_ai.usage.input_tokens") != "100" || testkit.Attr(first.Attributes, "gen_ai.usage.output_tokens") != "10" ||
		testkit.Attr(first.Attributes, "gen_ai.usage.cache_read.input_tokens") != "40" {
		t.Errorf("the first request's usage attributes: %v", first.Attributes)
	}
	if d := time.Duration(first.EndTimeUnixNano - first.StartTimeUnixNano); d != 500*time.Millisecond {
		t.Errorf("the first request's span lasts %v, want the 500ms from its send to its usage", d)
	}
	var reasons []string
	for _, kv := range first.Attributes {
		if kv.Key == "gen_ai.response.finish_reasons" {
			for _, v := range kv.Value.GetArrayValue().GetValues() {
				reasons = append(reasons, v.GetStringValue())
			}
		}
	}
	if len(reasons) != 1 || reasons[0] != string(event.StopToolUse) {
		t.Errorf("finish reasons %q, want [%s]", reasons, event.StopToolUse)
	}
	for _, s := range tools {
		agent := testkit.Attr(s.Attributes, "gen_ai.agent.id")
		if !bytes.Equal(s.ParentSpanId, ids[agent]) {
			t.Errorf("tool span %s of %s is not under its agent's span", s.Name, agent)
		}
		switch s.Name {
		case "execute_tool read":
			if testkit.Attr(s.Attributes, "gen_ai.tool.call.id") != "r1" || s.Status.GetCode() != 2 || s.Status.GetMessage() != "no such file" {
				t.Errorf("the failed read's span: %v, status %v", s.Attributes, s.Status)
			}
		case "execute_tool task":
			if agent != "lead" || testkit.Attr(s.Attributes, "gen_ai.tool.name") != "task" || testkit.Attr(s.Attributes, "gen_ai.tool.call.id") != "c1" {
				t.Errorf("the task call's span: %v", s.Attributes)
			}
		default:
			t.Errorf("unexpected tool span %s", s.Name)
		}
	}
}

// A signal's own endpoint alone turns that signal on, and only it.
func TestASignalsOwnEndpointAloneExportsThatSignalOnly(t *testing.T) {
	for _, signal := range []string{"TRACES", "METRICS"} {
		t.Run(signal, func(t *testing.T) {
			col := testkit.NewCollector(t)
			env := map[string]string{"OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT": col.URL() + "/v1/" + strings.ToLower(signal)}
			getenv := func(k string) string { return env[k] }
			if !OTelEnabled(getenv) {
				t.Fatalf("OTelEnabled is false with %v", env)
			}
			sink := NewOTel(getenv)
			b := bus.New()
			obs := Watch(b, func() time.Time { return at(9) }, nil, sink)
			for _, e := range flat(leadStart(0), spawn(1, "lead", "explore-1", "c1", "explore", "native", false),
				finish(2, "lead", "explore-1", "c1", true, 1, event.Usage{InputTokens: 3}), leadComplete(3, false)) {
				b.Emit(e)
			}
			if err := obs.Close(); err != nil {
				t.Fatal(err)
			}
			if err := sink.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			spans, metrics := len(col.Spans()), len(col.Metrics())
			if signal == "TRACES" && (spans == 0 || metrics != 0) || signal == "METRICS" && (spans != 0 || metrics == 0) {
				t.Errorf("with only %v: %d spans and %d metrics exported", env, spans, metrics)
			}
		})
	}
	if OTelEnabled(func(k string) string { return map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}[k] }) {
		t.Error("OTelEnabled is true with no endpoint at all")
	}
}
