package observe

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Atomic's OTLP/HTTP exporters. The official otlptracehttp and
// otlpmetrichttp link gRPC (their config and the collector packages import
// it), and with it html/template, which doubles the binary (56 to 113 MB)
// and slows every start; the OTLP message packages alone still cost the
// protobuf runtime's init on every start. These send the same messages
// (ExportTraceServiceRequest, ExportMetricsServiceRequest, encoded by
// otlpwire.go) over HTTP, configured by the standard variables.

// otlpClient posts OTLP protobuf requests to one signal's endpoint.
type otlpClient struct {
	url     string
	headers http.Header
	gzip    bool
	http    *http.Client
	agent   string
}

// newOTLPClient reads the standard variables for signal ("traces" or
// "metrics"): OTEL_EXPORTER_OTLP_[SIGNAL_]ENDPOINT, _HEADERS, _TIMEOUT
// (ms), _COMPRESSION (gzip or none) and _PROTOCOL (http/protobuf only).
func newOTLPClient(getenv func(string) string, signal string) (*otlpClient, error) {
	env := func(name string) (string, string) {
		specific := "OTEL_EXPORTER_OTLP_" + strings.ToUpper(signal) + "_" + name
		if v := getenv(specific); v != "" {
			return v, specific
		}
		return getenv("OTEL_EXPORTER_OTLP_" + name), "OTEL_EXPORTER_OTLP_" + name
	}
	if p, k := env("PROTOCOL"); p != "" && p != "http/protobuf" {
		return nil, fmt.Errorf("%s=%s is not supported: Atomic exports OTLP over http/protobuf only", k, p)
	}
	c := &otlpClient{headers: http.Header{}, agent: "atomic-otlp"}
	if v := getenv("OTEL_EXPORTER_OTLP_" + strings.ToUpper(signal) + "_ENDPOINT"); v != "" {
		c.url = v // a signal's own endpoint is used as given
	} else {
		c.url = strings.TrimSuffix(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "/") + "/v1/" + signal
	}
	if u, err := url.Parse(c.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP %s endpoint %q: want an http:// or https:// URL", signal, c.url)
	}
	timeout := 10 * time.Second
	if v, k := env("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%s=%q: want a positive number of milliseconds", k, v)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	c.http = &http.Client{Timeout: timeout, Transport: tr}
	switch v, k := env("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return nil, fmt.Errorf("%s=%q: want gzip or none", k, v)
	}
	if v, k := env("HEADERS"); v != "" {
		for pair := range strings.SplitSeq(v, ",") {
			name, value, ok := strings.Cut(pair, "=")
			name, _ = url.QueryUnescape(strings.TrimSpace(name))
			value, _ = url.QueryUnescape(strings.TrimSpace(value))
			if !ok || name == "" {
				return nil, fmt.Errorf("%s: %q is not name=value", k, pair)
			}
			c.headers.Add(name, value)
		}
	}
	return c, nil
}

// post sends the request body msg (already encoded).
func (c *otlpClient) post(ctx context.Context, msg []byte) error {
	body := msg
	if c.gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(msg)
		if err := zw.Close(); err != nil {
			return err
		}
		body = buf.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range c.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", c.agent)
	if c.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("OTLP export to %s: %w", c.url, err)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("OTLP export to %s: %s %s", c.url, resp.Status, strings.TrimSpace(string(snippet)))
	}
	return nil
}

// OTLP field numbers (opentelemetry-proto v1: common, resource, trace,
// metrics) of the messages written here.
const (
	fRequestResources = 1 // Export*ServiceRequest.resource_spans / resource_metrics
	fResource         = 1 // Resource{Spans,Metrics}.resource
	fScopeItems       = 2 // Resource{Spans,Metrics}.scope_spans / scope_metrics
	fScope            = 1 // Scope{Spans,Metrics}.scope
	fScopeEntries     = 2 // ScopeSpans.spans / ScopeMetrics.metrics
)

// traceExporter is an sdktrace.SpanExporter over OTLP/HTTP.
type traceExporter struct{ c *otlpClient }

func (e traceExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	type key struct {
		res   *resource.Resource
		scope instrumentation.Scope
	}
	var order []key
	groups := map[key]pb{}
	for _, s := range spans {
		k := key{s.Resource(), s.InstrumentationScope()}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = groups[k].msg(fScopeEntries, spanPB(s))
	}
	var req pb
	for _, k := range order {
		scoped := pb(nil).msg(fScope, scopePB(k.scope)).raw(groups[k])
		rs := pb(nil).msg(fResource, resourcePB(k.res)).msg(fScopeItems, scoped)
		req = req.msg(fRequestResources, rs)
	}
	return e.c.post(ctx, req)
}

// Shutdown closes the exporter's idle connections.
func (e traceExporter) Shutdown(context.Context) error { e.c.http.CloseIdleConnections(); return nil }

// spanPB encodes a trace.v1.Span.
func spanPB(s sdktrace.ReadOnlySpan) pb {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b := pb(nil).bytes(1, tid[:]).bytes(2, sid[:]).str(3, sc.TraceState().String())
	if par := s.Parent(); par.IsValid() {
		psid := par.SpanID()
		b = b.bytes(4, psid[:])
	}
	b = b.str(5, s.Name()).varint(6, uint64(s.SpanKind())).
		fixed64(7, uint64(s.StartTime().UnixNano())).fixed64(8, uint64(s.EndTime().UnixNano()))
	b = attrsPB(b, 9, s.Attributes()).varint(10, uint64(s.DroppedAttributes()))
	for _, ev := range s.Events() {
		b = b.msg(11, attrsPB(pb(nil).fixed64(1, uint64(ev.Time.UnixNano())).str(2, ev.Name), 3, ev.Attributes))
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		b = b.msg(15, pb(nil).str(2, st.Description).varint(3, 2)) // STATUS_CODE_ERROR
	case codes.Ok:
		b = b.msg(15, pb(nil).varint(3, 1)) // STATUS_CODE_OK
	}
	return b.fixed32(16, uint32(sc.TraceFlags()))
}

// resourcePB encodes a resource.v1.Resource.
func resourcePB(r *resource.Resource) pb {
	if r == nil {
		return pb(nil)
	}
	return attrsPB(nil, 1, r.Attributes())
}

// scopePB encodes a common.v1.InstrumentationScope.
func scopePB(s instrumentation.Scope) pb { return pb(nil).str(1, s.Name).str(2, s.Version) }

// attrsPB appends kvs as repeated common.v1.KeyValue field f.
func attrsPB(b pb, f int, kvs []attribute.KeyValue) pb {
	for _, kv := range kvs {
		b = b.msg(f, pb(nil).str(1, string(kv.Key)).msg(2, valuePB(kv.Value)))
	}
	return b
}

// valuePB encodes a common.v1.AnyValue (a oneof: the member is always
// written, zero or not).
func valuePB(v attribute.Value) pb {
	switch v.Type() {
	case attribute.BOOL:
		var n uint64
		if v.AsBool() {
			n = 1
		}
		return pb(nil).varintAlways(2, n)
	case attribute.INT64:
		return pb(nil).varintAlways(3, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		return pb(nil).doubleAlways(4, v.AsFloat64())
	default:
		return pb(nil).strAlways(1, v.Emit())
	}
}

// metricExporter is an sdkmetric.Exporter over OTLP/HTTP (the SDK's
// default temporality, cumulative, and aggregations).
type metricExporter struct{ c *otlpClient }

func (metricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (metricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	rs := pb(nil).msg(fResource, resourcePB(rm.Resource))
	some := false
	for _, sm := range rm.ScopeMetrics {
		scoped := pb(nil).msg(fScope, scopePB(sm.Scope))
		n := 0
		for _, m := range sm.Metrics {
			if enc, ok := metricPB(m); ok {
				scoped = scoped.msg(fScopeEntries, enc)
				n++
			}
		}
		if n > 0 {
			rs, some = rs.msg(fScopeItems, scoped), true
		}
	}
	if !some {
		return nil
	}
	return e.c.post(ctx, pb(nil).msg(fRequestResources, rs))
}

func (metricExporter) ForceFlush(context.Context) error { return nil }

// Shutdown closes the exporter's idle connections.
func (e metricExporter) Shutdown(context.Context) error { e.c.http.CloseIdleConnections(); return nil }

// temporalityPB is metrics.v1.AggregationTemporality.
func temporalityPB(t metricdata.Temporality) uint64 {
	if t == metricdata.DeltaTemporality {
		return 1
	}
	return 2 // cumulative
}

// metricPB encodes a metrics.v1.Metric of the kinds Atomic records: int
// and float sums, float histograms. Other kinds are left out.
func metricPB(m metricdata.Metrics) (pb, bool) {
	b := pb(nil).str(1, m.Name).str(2, m.Description).str(3, m.Unit)
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		sum := pb(nil)
		for _, dp := range d.DataPoints {
			sum = sum.msg(1, numberPoint(dp.Attributes.ToSlice(), dp.StartTime, dp.Time).fixed64Always(6, uint64(dp.Value)))
		}
		return b.msg(7, monotonic(sum.varint(2, temporalityPB(d.Temporality)), d.IsMonotonic)), true
	case metricdata.Sum[float64]:
		sum := pb(nil)
		for _, dp := range d.DataPoints {
			sum = sum.msg(1, numberPoint(dp.Attributes.ToSlice(), dp.StartTime, dp.Time).doubleAlways(4, dp.Value))
		}
		return b.msg(7, monotonic(sum.varint(2, temporalityPB(d.Temporality)), d.IsMonotonic)), true
	case metricdata.Histogram[float64]:
		h := pb(nil)
		for _, dp := range d.DataPoints {
			p := attrsPB(nil, 9, dp.Attributes.ToSlice()).fixed64(2, uint64(dp.StartTime.UnixNano())).
				fixed64(3, uint64(dp.Time.UnixNano())).fixed64(4, dp.Count).doubleAlways(5, dp.Sum)
			p = p.packedFixed64(6, dp.BucketCounts)
			bounds := make([]uint64, len(dp.Bounds))
			for i, v := range dp.Bounds {
				bounds[i] = math.Float64bits(v)
			}
			p = p.packedFixed64(7, bounds)
			if v, ok := dp.Min.Value(); ok {
				p = p.doubleAlways(11, v)
			}
			if v, ok := dp.Max.Value(); ok {
				p = p.doubleAlways(12, v)
			}
			h = h.msg(1, p)
		}
		return b.msg(9, h.varint(2, temporalityPB(d.Temporality))), true
	}
	return nil, false
}

func monotonic(sum pb, yes bool) pb {
	if yes {
		return sum.varint(3, 1)
	}
	return sum
}

// numberPoint starts a metrics.v1.NumberDataPoint: attributes and times.
func numberPoint(attrs []attribute.KeyValue, start, end time.Time) pb {
	return attrsPB(nil, 7, attrs).fixed64(2, uint64(start.UnixNano())).fixed64(3, uint64(end.UnixNano()))
}
