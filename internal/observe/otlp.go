package observe

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
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
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Atomic's OTLP/HTTP exporters. The official otlptracehttp and
// otlpmetrichttp link gRPC (their config and the collector packages import
// it), and with it html/template, which doubles the binary and slows every
// start; these send the same protobuf messages over HTTP with the standard
// variables, using only the OTLP message packages.

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

// envelope encodes an Export*ServiceRequest: its one field (1) repeats
// the resource messages.
func envelope[M proto.Message](items []M) ([]byte, error) {
	var b []byte
	for _, m := range items {
		enc, err := proto.Marshal(m)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, enc)
	}
	return b, nil
}

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
	groups := map[key][]*tracepb.Span{}
	for _, s := range spans {
		k := key{s.Resource(), s.InstrumentationScope()}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], spanPB(s))
	}
	var rs []*tracepb.ResourceSpans
	for _, k := range order {
		rs = append(rs, &tracepb.ResourceSpans{Resource: resourcePB(k.res),
			ScopeSpans: []*tracepb.ScopeSpans{{Scope: scopePB(k.scope), Spans: groups[k]}}})
	}
	body, err := envelope(rs)
	if err != nil {
		return err
	}
	return e.c.post(ctx, body)
}

// Shutdown closes the exporter's idle connections.
func (e traceExporter) Shutdown(context.Context) error { e.c.http.CloseIdleConnections(); return nil }

func spanPB(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	p := &tracepb.Span{TraceId: tid[:], SpanId: sid[:], Name: s.Name(), Kind: tracepb.Span_SpanKind(s.SpanKind()),
		StartTimeUnixNano: uint64(s.StartTime().UnixNano()), EndTimeUnixNano: uint64(s.EndTime().UnixNano()),
		Attributes: attrsPB(s.Attributes()), DroppedAttributesCount: uint32(s.DroppedAttributes()),
		TraceState: sc.TraceState().String(), Flags: uint32(sc.TraceFlags())}
	if par := s.Parent(); par.IsValid() {
		psid := par.SpanID()
		p.ParentSpanId = psid[:]
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: st.Description}
	case codes.Ok:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	}
	for _, ev := range s.Events() {
		p.Events = append(p.Events, &tracepb.Span_Event{Name: ev.Name, TimeUnixNano: uint64(ev.Time.UnixNano()), Attributes: attrsPB(ev.Attributes)})
	}
	return p
}

func resourcePB(r *resource.Resource) *resourcepb.Resource {
	if r == nil {
		return &resourcepb.Resource{}
	}
	return &resourcepb.Resource{Attributes: attrsPB(r.Attributes())}
}

func scopePB(s instrumentation.Scope) *commonpb.InstrumentationScope {
	return &commonpb.InstrumentationScope{Name: s.Name, Version: s.Version}
}

func attrsPB(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	out := make([]*commonpb.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: valuePB(kv.Value)})
	}
	return out
}

func valuePB(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	default:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.Emit()}}
	}
}

// metricExporter is an sdkmetric.Exporter over OTLP/HTTP (cumulative
// temporality, the SDK's default aggregations).
type metricExporter struct{ c *otlpClient }

func (metricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (metricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	out := &metricspb.ResourceMetrics{Resource: resourcePB(rm.Resource)}
	for _, sm := range rm.ScopeMetrics {
		ps := &metricspb.ScopeMetrics{Scope: scopePB(sm.Scope)}
		for _, m := range sm.Metrics {
			if pm := metricPB(m); pm != nil {
				ps.Metrics = append(ps.Metrics, pm)
			}
		}
		if len(ps.Metrics) > 0 {
			out.ScopeMetrics = append(out.ScopeMetrics, ps)
		}
	}
	if len(out.ScopeMetrics) == 0 {
		return nil
	}
	body, err := envelope([]*metricspb.ResourceMetrics{out})
	if err != nil {
		return err
	}
	return e.c.post(ctx, body)
}

func (metricExporter) ForceFlush(context.Context) error { return nil }

// Shutdown closes the exporter's idle connections.
func (e metricExporter) Shutdown(context.Context) error { e.c.http.CloseIdleConnections(); return nil }

func temporalityPB(t metricdata.Temporality) metricspb.AggregationTemporality {
	if t == metricdata.DeltaTemporality {
		return metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
	}
	return metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
}

// metricPB converts the kinds of data Atomic records: int and float sums,
// float histograms. Other kinds are left out.
func metricPB(m metricdata.Metrics) *metricspb.Metric {
	p := &metricspb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		p.Data = &metricspb.Metric_Sum{Sum: &metricspb.Sum{AggregationTemporality: temporalityPB(d.Temporality), IsMonotonic: d.IsMonotonic,
			DataPoints: numberPoints(d.DataPoints, func(v int64) *metricspb.NumberDataPoint {
				return &metricspb.NumberDataPoint{Value: &metricspb.NumberDataPoint_AsInt{AsInt: v}}
			})}}
	case metricdata.Sum[float64]:
		p.Data = &metricspb.Metric_Sum{Sum: &metricspb.Sum{AggregationTemporality: temporalityPB(d.Temporality), IsMonotonic: d.IsMonotonic,
			DataPoints: numberPoints(d.DataPoints, func(v float64) *metricspb.NumberDataPoint {
				return &metricspb.NumberDataPoint{Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: v}}
			})}}
	case metricdata.Histogram[float64]:
		h := &metricspb.Histogram{AggregationTemporality: temporalityPB(d.Temporality)}
		for _, dp := range d.DataPoints {
			sum := dp.Sum
			hp := &metricspb.HistogramDataPoint{Attributes: attrsPB(dp.Attributes.ToSlice()),
				StartTimeUnixNano: uint64(dp.StartTime.UnixNano()), TimeUnixNano: uint64(dp.Time.UnixNano()),
				Count: dp.Count, Sum: &sum, BucketCounts: dp.BucketCounts, ExplicitBounds: dp.Bounds}
			if v, ok := dp.Min.Value(); ok {
				hp.Min = &v
			}
			if v, ok := dp.Max.Value(); ok {
				hp.Max = &v
			}
			h.DataPoints = append(h.DataPoints, hp)
		}
		p.Data = &metricspb.Metric_Histogram{Histogram: h}
	default:
		return nil
	}
	return p
}

func numberPoints[N int64 | float64](dps []metricdata.DataPoint[N], value func(N) *metricspb.NumberDataPoint) []*metricspb.NumberDataPoint {
	out := make([]*metricspb.NumberDataPoint, 0, len(dps))
	for _, dp := range dps {
		p := value(dp.Value)
		p.Attributes = attrsPB(dp.Attributes.ToSlice())
		p.StartTimeUnixNano, p.TimeUnixNano = uint64(dp.StartTime.UnixNano()), uint64(dp.Time.UnixNano())
		out = append(out, p)
	}
	return out
}
