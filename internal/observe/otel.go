package observe

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// scope is the instrumentation scope of Atomic's spans and metrics.
const scope = "github.com/atomic-agent/atomic"

// OTelEnabled reports whether OpenTelemetry export is asked for:
// OTEL_EXPORTER_OTLP_ENDPOINT is set (and OTEL_SDK_DISABLED is not true).
// When it is not, nothing of OpenTelemetry is started.
func OTelEnabled(getenv func(string) string) bool {
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" && !strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true")
}

// OTel is a SpanSink that exports each agent as a span of the run's one
// trace (parented as the agents tree is) and the same figures as metrics,
// over OTLP/HTTP (otlp.go) configured by the standard OTEL_* variables. Its
// providers are built at the first span, on the observer's goroutine, not
// on the run's start path.
type OTel struct {
	getenv func(string) string
	err    error // why export is off, once it failed to start

	tp    *sdktrace.TracerProvider
	mp    *sdkmetric.MeterProvider
	tr    trace.Tracer
	spans map[string]trace.Span // by agent id, open and ended
	lead  trace.Span

	spawns, errs, toolUses, tokens metric.Int64Counter
	cost                           metric.Float64Counter
	duration                       metric.Float64Histogram
}

// NewOTel returns the sink; it starts nothing yet.
func NewOTel(getenv func(string) string) *OTel {
	return &OTel{getenv: getenv, spans: map[string]trace.Span{}}
}

func (o *OTel) start() error {
	if o.tp != nil || o.err != nil {
		return o.err
	}
	o.err = o.open(context.Background())
	if o.err != nil {
		o.err = fmt.Errorf("OpenTelemetry export is off: %w", o.err)
	}
	return o.err
}

func (o *OTel) open(ctx context.Context) error {
	tc, err := newOTLPClient(o.getenv, "traces")
	if err != nil {
		return err
	}
	mc, err := newOTLPClient(o.getenv, "metrics")
	if err != nil {
		return err
	}
	// Later options win: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
	// override the default service name.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "atomic")),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil && res == nil {
		return err
	}
	o.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(traceExporter{tc}), sdktrace.WithResource(res))
	o.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metricExporter{mc})), sdkmetric.WithResource(res))
	o.tr = o.tp.Tracer(scope)
	m := o.mp.Meter(scope)
	o.spawns, _ = m.Int64Counter("atomic.agent.spawns", metric.WithDescription("agents started"), metric.WithUnit("{agent}"))
	o.errs, _ = m.Int64Counter("atomic.agent.errors", metric.WithDescription("agents that ended in error"), metric.WithUnit("{agent}"))
	o.toolUses, _ = m.Int64Counter("atomic.agent.tool_uses", metric.WithDescription("tool calls made by agents"), metric.WithUnit("{call}"))
	o.tokens, _ = m.Int64Counter("atomic.agent.tokens", metric.WithDescription("tokens used by agents, by token.type"), metric.WithUnit("{token}"))
	o.cost, _ = m.Float64Counter("atomic.agent.cost", metric.WithDescription("cost of agents' model use"), metric.WithUnit("USD"))
	o.duration, _ = m.Float64Histogram("atomic.agent.duration", metric.WithDescription("agent duration, start to end"), metric.WithUnit("s"))
	return nil
}

// spanName follows OpenTelemetry's GenAI conventions: invoke_agent NAME.
func spanName(s Span) string { return "invoke_agent " + s.Type }

// Started opens s's span under its parent agent's (the lead's when the
// parent is unknown), from s's start time.
func (o *OTel) Started(s Span) error {
	if err := o.start(); err != nil {
		return err
	}
	ctx := context.Background()
	parent := o.spans[s.ParentID]
	if parent == nil && s.Kind != KindLead {
		parent = o.lead
	}
	if parent != nil {
		ctx = trace.ContextWithSpan(ctx, parent)
	}
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.id", s.AgentID),
		attribute.String("gen_ai.agent.name", s.Type),
		attribute.String("atomic.agent.kind", s.Kind),
		attribute.String("atomic.backend", s.Backend),
		attribute.String("atomic.session_id", s.SessionID),
	}
	if s.Model != "" {
		attrs = append(attrs, attribute.String("gen_ai.request.model", s.Model))
	}
	if s.Background {
		attrs = append(attrs, attribute.Bool("atomic.background", true))
	}
	_, sp := o.tr.Start(ctx, spanName(s), trace.WithTimestamp(s.Start), trace.WithAttributes(attrs...),
		trace.WithSpanKind(trace.SpanKindInternal))
	o.spans[s.AgentID] = sp
	if s.Kind == KindLead && o.lead == nil {
		o.lead = sp
	}
	return nil
}

// Ended ends s's span with its outcome and records its figures.
func (o *OTel) Ended(s Span) error {
	if err := o.start(); err != nil {
		return err
	}
	sp := o.spans[s.AgentID]
	if sp == nil { // ended without a start seen: open it now
		if err := o.Started(s); err != nil {
			return err
		}
		sp = o.spans[s.AgentID]
	}
	sp.SetAttributes(
		attribute.String("atomic.status", s.Status),
		attribute.Int("atomic.tool_uses", s.ToolUses),
		attribute.Int64("gen_ai.usage.input_tokens", s.Usage.InputTokens),
		attribute.Int64("gen_ai.usage.output_tokens", s.Usage.OutputTokens),
		attribute.Float64("atomic.cost_usd", s.Usage.CostUSD))
	if s.Failed() {
		sp.SetStatus(codes.Error, s.Error)
	}
	sp.End(trace.WithTimestamp(s.End))

	ctx := context.Background()
	by := metric.WithAttributes(attribute.String("gen_ai.agent.name", s.Type), attribute.String("atomic.backend", s.Backend))
	o.spawns.Add(ctx, 1, by)
	if s.Failed() {
		o.errs.Add(ctx, 1, by)
	}
	o.duration.Record(ctx, s.Duration().Seconds(), by)
	o.toolUses.Add(ctx, int64(s.ToolUses), by)
	o.cost.Add(ctx, s.Usage.CostUSD, by)
	for kind, n := range map[string]int64{"input": s.Usage.InputTokens, "output": s.Usage.OutputTokens,
		"cache_read": s.Usage.CacheReadTokens, "cache_creation": s.Usage.CacheCreationTokens} {
		if n > 0 {
			o.tokens.Add(ctx, n, metric.WithAttributes(attribute.String("gen_ai.agent.name", s.Type),
				attribute.String("atomic.backend", s.Backend), attribute.String("gen_ai.token.type", kind)))
		}
	}
	return nil
}

// Shutdown flushes and stops the providers (nothing when none started).
func (o *OTel) Shutdown(ctx context.Context) error {
	if o.tp == nil {
		return nil
	}
	err := errors.Join(o.tp.Shutdown(ctx), o.mp.Shutdown(ctx))
	if err != nil {
		return fmt.Errorf("OpenTelemetry export: %w", err)
	}
	return nil
}
