package observe

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// scope is the instrumentation scope of Atomic's spans and metrics.
const scope = "github.com/atomic-agent/atomic"

// OTelEnabled reports whether OpenTelemetry export is asked for:
// OTEL_EXPORTER_OTLP_ENDPOINT, or the endpoint of one signal
// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, _METRICS_ENDPOINT), is set and
// OTEL_SDK_DISABLED is not true. A signal with no endpoint of its own
// nor the base one is not exported.
// When it is not, nothing of OpenTelemetry is started.
func OTelEnabled(getenv func(string) string) bool {
	set := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" ||
		getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
	return set && !strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true")
}

// OTel is a SpanSink that exports each agent as a span of the run's one
// trace (parented as the agents tree is) and the same figures as metrics,
// over OTLP/HTTP (otlp.go) configured by the standard OTEL_* variables. Its
// pipeline (telemetry.go, pipeline.go) starts at the first span, on the
// observer's goroutine, not on the run's start path.
type OTel struct {
	getenv func(string) string
	now    func() time.Time
	err    error // why export is off, once it failed to start

	p     *pipeline
	spans map[string]*span // by agent id, open and ended
	lead  *span

	spawns, errs, toolUses, tokens, cost, duration *instrument
}

// NewOTel returns the sink; it starts nothing yet.
func NewOTel(getenv func(string) string) *OTel {
	return &OTel{getenv: getenv, now: time.Now, spans: map[string]*span{}}
}

func (o *OTel) start() error {
	if o.p != nil || o.err != nil {
		return o.err
	}
	o.err = o.open()
	if o.err != nil {
		o.err = fmt.Errorf("OpenTelemetry export is off: %w", o.err)
	}
	return o.err
}

func (o *OTel) open() error {
	p, err := newPipeline(o.getenv, o.now())
	if err != nil {
		return err
	}
	o.p = p
	m := p.meter
	o.spawns = m.instrument(intCounter, "atomic.agent.spawns", "agents started", "{agent}")
	o.errs = m.instrument(intCounter, "atomic.agent.errors", "agents that ended in error", "{agent}")
	o.toolUses = m.instrument(intCounter, "atomic.agent.tool_uses", "tool calls made by agents", "{call}")
	o.tokens = m.instrument(intCounter, "atomic.agent.tokens", "tokens used by agents, by token.type", "{token}")
	o.cost = m.instrument(floatCounter, "atomic.agent.cost", "cost of agents' model use", "USD")
	o.duration = m.instrument(histogram, "atomic.agent.duration", "agent duration, start to end", "s")
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
	parent := o.spans[s.ParentID]
	if parent == nil && s.Kind != KindLead {
		parent = o.lead
	}
	attrs := []kv{
		attrStr("gen_ai.operation.name", "invoke_agent"),
		attrStr("gen_ai.agent.id", s.AgentID),
		attrStr("gen_ai.agent.name", s.Type),
		attrStr("atomic.agent.kind", s.Kind),
		attrStr("atomic.backend", s.Backend),
		attrStr("atomic.session_id", s.SessionID),
	}
	if s.Model != "" {
		attrs = append(attrs, attrStr("gen_ai.request.model", s.Model))
	}
	if s.Background {
		attrs = append(attrs, attrBool("atomic.background", true))
	}
	sp := newSpan(spanName(s), s.Start, parent, o.p.sample, attrs)
	o.spans[s.AgentID] = sp
	if s.Kind == KindLead && o.lead == nil {
		o.lead = sp
	}
	return nil
}

// Call records c as a span under its agent's (the lead's when that is
// unknown), with the GenAI conventions' attributes: a model request is
// "chat MODEL", a tool call "execute_tool TOOL".
func (o *OTel) Call(c Call) error {
	if err := o.start(); err != nil {
		return err
	}
	parent := o.spans[c.AgentID]
	if parent == nil {
		parent = o.lead
	}
	attrs := []kv{attrStr("gen_ai.operation.name", c.Kind), attrStr("gen_ai.agent.id", c.AgentID)}
	switch c.Kind {
	case CallModel:
		attrs = append(attrs,
			attrStr("gen_ai.provider.name", c.Provider),
			attrStr("gen_ai.system", c.Provider), // the name before semconv 1.37
			attrStr("gen_ai.request.model", c.Name),
			attrInt("gen_ai.usage.input_tokens", c.Usage.InputTokens),
			attrInt("gen_ai.usage.output_tokens", c.Usage.OutputTokens))
		if n := c.Usage.CacheReadTokens; n > 0 {
			attrs = append(attrs, attrInt("gen_ai.usage.cache_read.input_tokens", n))
		}
		if n := c.Usage.CacheCreationTokens; n > 0 {
			attrs = append(attrs, attrInt("gen_ai.usage.cache_creation.input_tokens", n))
		}
		if c.StopReason != "" {
			attrs = append(attrs, kv{"gen_ai.response.finish_reasons", []string{c.StopReason}})
		}
	case CallTool:
		attrs = append(attrs, attrStr("gen_ai.tool.name", c.Name), attrStr("gen_ai.tool.call.id", c.ID))
	}
	sp := newSpan(c.Kind+" "+c.Name, c.Start, parent, o.p.sample, attrs)
	sp.end = c.End
	if sp.end.Before(sp.start) {
		sp.end = sp.start
	}
	if c.Failed {
		sp.failed, sp.statusMsg = true, c.Error
	}
	o.p.ended(sp)
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
	if sp.end.IsZero() { // an ended span is not changed again
		sp.attrs = setAttrs(sp.attrs,
			attrStr("atomic.status", s.Status),
			attrInt("atomic.tool_uses", int64(s.ToolUses)),
			attrInt("gen_ai.usage.input_tokens", s.Usage.InputTokens),
			attrInt("gen_ai.usage.output_tokens", s.Usage.OutputTokens),
			attrFloat("atomic.cost_usd", s.Usage.CostUSD))
		if s.Failed() {
			sp.failed, sp.statusMsg = true, s.Error
		}
		sp.end = s.End
		o.p.ended(sp)
	}

	m := o.p.meter
	by := []kv{attrStr("gen_ai.agent.name", s.Type), attrStr("atomic.backend", s.Backend)}
	m.add(o.spawns, 1, 0, by...)
	if s.Failed() {
		m.add(o.errs, 1, 0, by...)
	}
	m.add(o.duration, 0, s.Duration().Seconds(), by...)
	m.add(o.toolUses, int64(s.ToolUses), 0, by...)
	m.add(o.cost, 0, s.Usage.CostUSD, by...)
	tokens := map[string]int64{"input": s.Usage.InputTokens, "output": s.Usage.OutputTokens,
		"cache_read": s.Usage.CacheReadTokens, "cache_creation": s.Usage.CacheCreationTokens}
	for _, kind := range slices.Sorted(maps.Keys(tokens)) {
		if n := tokens[kind]; n > 0 {
			m.add(o.tokens, n, 0, append(by, attrStr("gen_ai.token.type", kind))...)
		}
	}
	return nil
}

// Shutdown sends what is left and stops the pipeline (nothing when none
// started).
func (o *OTel) Shutdown(ctx context.Context) error {
	if o.p == nil {
		return nil
	}
	if err := o.p.shutdown(ctx); err != nil {
		return fmt.Errorf("OpenTelemetry export: %w", err)
	}
	return nil
}
