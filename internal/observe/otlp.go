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
)

// Atomic's OTLP/HTTP export. The official otlptracehttp and otlpmetrichttp
// link gRPC (their config and the collector packages import it), and with
// it html/template, which doubles the binary (56 to 113 MB) and slows every
// start; the OTLP message packages alone still cost the protobuf runtime's
// init on every start. This sends the same messages
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
	if getenv("OTEL_EXPORTER_OTLP_"+strings.ToUpper(signal)+"_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" {
		return nil, nil // this signal is not asked for
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

// scopePB is the common.v1.InstrumentationScope of Atomic's telemetry.
func scopePB() pb { return pb(nil).str(1, scope) }

// tracesRequest encodes an ExportTraceServiceRequest of spans: one
// resource, one scope.
func tracesRequest(resource []kv, spans []*span) pb {
	scoped := pb(nil).msg(fScope, scopePB())
	for _, s := range spans {
		scoped = scoped.msg(fScopeEntries, spanPB(s))
	}
	rs := pb(nil).msg(fResource, attrsPB(nil, 1, resource)).msg(fScopeItems, scoped)
	return pb(nil).msg(fRequestResources, rs)
}

// spanPB encodes a trace.v1.Span.
func spanPB(s *span) pb {
	b := pb(nil).bytes(1, s.traceID[:]).bytes(2, s.spanID[:])
	if s.parentID != ([8]byte{}) {
		b = b.bytes(4, s.parentID[:])
	}
	b = b.str(5, s.name).varint(6, spanKindInternal).
		fixed64(7, uint64(s.start.UnixNano())).fixed64(8, uint64(s.end.UnixNano()))
	b = attrsPB(b, 9, s.attrs)
	if s.failed {
		b = b.msg(15, pb(nil).str(2, s.statusMsg).varint(3, statusError))
	}
	return b.fixed32(16, 1) // trace flags: sampled
}

// attrsPB appends kvs as repeated common.v1.KeyValue field f.
func attrsPB(b pb, f int, kvs []kv) pb {
	for _, a := range kvs {
		b = b.msg(f, pb(nil).str(1, a.key).msg(2, valuePB(a.val)))
	}
	return b
}

// valuePB encodes a common.v1.AnyValue (a oneof: the member is always
// written, zero or not).
func valuePB(v any) pb {
	switch v := v.(type) {
	case bool:
		var n uint64
		if v {
			n = 1
		}
		return pb(nil).varintAlways(2, n)
	case int64:
		return pb(nil).varintAlways(3, uint64(v))
	case float64:
		return pb(nil).doubleAlways(4, v)
	case string:
		return pb(nil).strAlways(1, v)
	case []string: // an ArrayValue
		arr := pb(nil)
		for _, s := range v {
			arr = arr.msg(1, valuePB(s))
		}
		return pb(nil).msg(5, arr)
	}
	return pb(nil).strAlways(1, fmt.Sprint(v))
}

// aggregationCumulative is metrics.v1.AggregationTemporality's
// AGGREGATION_TEMPORALITY_CUMULATIVE.
const aggregationCumulative = 2

// metricsRequest encodes an ExportMetricsServiceRequest of snaps, their
// cumulative points from start to now: one resource, one scope.
func metricsRequest(resource []kv, snaps []snapshot, start, now time.Time) pb {
	scoped := pb(nil).msg(fScope, scopePB())
	for _, sn := range snaps {
		scoped = scoped.msg(fScopeEntries, metricPB(sn, start, now))
	}
	rs := pb(nil).msg(fResource, attrsPB(nil, 1, resource)).msg(fScopeItems, scoped)
	return pb(nil).msg(fRequestResources, rs)
}

// metricPB encodes a metrics.v1.Metric: a monotonic sum (int or double)
// or an explicit-bucket histogram.
func metricPB(sn snapshot, start, now time.Time) pb {
	in := sn.in
	b := pb(nil).str(1, in.name).str(2, in.desc).str(3, in.unit)
	if in.kind == histogram {
		h := pb(nil)
		for _, p := range sn.points {
			dp := attrsPB(nil, 9, p.attrs).fixed64(2, uint64(start.UnixNano())).
				fixed64(3, uint64(now.UnixNano())).fixed64(4, p.count).doubleAlways(5, p.f).
				packedFixed64(6, p.buckets)
			bounds := make([]uint64, len(defaultBounds))
			for i, v := range defaultBounds {
				bounds[i] = math.Float64bits(v)
			}
			dp = dp.packedFixed64(7, bounds).doubleAlways(11, p.min).doubleAlways(12, p.max)
			h = h.msg(1, dp)
		}
		return b.msg(9, h.varint(2, aggregationCumulative))
	}
	sum := pb(nil)
	for _, p := range sn.points {
		dp := attrsPB(nil, 7, p.attrs).fixed64(2, uint64(start.UnixNano())).fixed64(3, uint64(now.UnixNano()))
		if in.kind == intCounter {
			dp = dp.fixed64Always(6, uint64(p.n))
		} else {
			dp = dp.doubleAlways(4, p.f)
		}
		sum = sum.msg(1, dp)
	}
	return b.msg(7, sum.varint(2, aggregationCumulative).varint(3, 1)) // is_monotonic
}
