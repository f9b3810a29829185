package testkit

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Collector is an OTLP/HTTP collector stand-in: it decodes what it is sent
// with the OTLP collector service's own request types (protobuf) and keeps
// it. A request it cannot decode is answered 400 and counted in Bad.
type Collector struct {
	srv *httptest.Server

	mu      sync.Mutex
	traces  []*coltracepb.ExportTraceServiceRequest
	metrics []*colmetricspb.ExportMetricsServiceRequest
	bad     []string
}

// NewCollector starts a collector on loopback, closed when the test ends.
func NewCollector(t testing.TB) *Collector {
	c := &Collector{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) {
		req := &coltracepb.ExportTraceServiceRequest{}
		if c.decode(w, r, req) {
			c.mu.Lock()
			c.traces = append(c.traces, req)
			c.mu.Unlock()
			reply(w, &coltracepb.ExportTraceServiceResponse{})
		}
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, r *http.Request) {
		req := &colmetricspb.ExportMetricsServiceRequest{}
		if c.decode(w, r, req) {
			c.mu.Lock()
			c.metrics = append(c.metrics, req)
			c.mu.Unlock()
			reply(w, &colmetricspb.ExportMetricsServiceResponse{})
		}
	})
	c.srv = httptest.NewServer(mux)
	t.Cleanup(c.srv.Close)
	return c
}

// URL is the collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT).
func (c *Collector) URL() string { return c.srv.URL }

func (c *Collector) decode(w http.ResponseWriter, r *http.Request, m proto.Message) bool {
	fail := func(why string) bool {
		c.mu.Lock()
		c.bad = append(c.bad, r.URL.Path+": "+why)
		c.mu.Unlock()
		http.Error(w, why, http.StatusBadRequest)
		return false
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		return fail("content type " + ct)
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return fail(err.Error())
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return fail(err.Error())
	}
	if err := proto.Unmarshal(b, m); err != nil {
		return fail(err.Error())
	}
	return true
}

func reply(w http.ResponseWriter, m proto.Message) {
	b, _ := proto.Marshal(m)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

// Bad lists the requests the collector could not decode.
func (c *Collector) Bad() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.bad...)
}

// Spans returns every span received, in order.
func (c *Collector) Spans() []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*tracepb.Span
	for _, req := range c.traces {
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	return out
}

// ResourceAttr is attribute key of the resource of the first spans sent.
func (c *Collector) ResourceAttr(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, req := range c.traces {
		for _, rs := range req.ResourceSpans {
			return Attr(rs.GetResource().GetAttributes(), key)
		}
	}
	return ""
}

// Metrics returns the last export of each metric by name (cumulative
// metrics: the last holds the totals).
func (c *Collector) Metrics() map[string]*metricspb.Metric {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]*metricspb.Metric{}
	for _, req := range c.metrics {
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					out[m.Name] = m
				}
			}
		}
	}
	return out
}

// Attr is the value of key among attrs, as text ("" when absent or of
// another kind).
func Attr(attrs []*commonpb.KeyValue, key string) string {
	for _, kv := range attrs {
		if kv.Key == key {
			switch v := kv.Value.GetValue().(type) {
			case *commonpb.AnyValue_StringValue:
				return v.StringValue
			case *commonpb.AnyValue_IntValue:
				return strconv.FormatInt(v.IntValue, 10)
			case *commonpb.AnyValue_BoolValue:
				return strconv.FormatBool(v.BoolValue)
			case *commonpb.AnyValue_DoubleValue:
				return strconv.FormatFloat(v.DoubleValue, 'g', -1, 64)
			}
		}
	}
	return ""
}
