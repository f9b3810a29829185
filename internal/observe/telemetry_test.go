package observe

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
)

func agentSpan(kind, id, parent string, start, end float64, status string) Span {
	return Span{Kind: kind, SessionID: sid, AgentID: id, ParentID: parent, Type: id, Backend: "native",
		Start: at(start), End: at(end), Status: status, Usage: event.Usage{InputTokens: 3}}
}

func TestMetricsAreExportedEveryIntervalNotOnlyAtShutdown(t *testing.T) {
	col := testkit.NewCollector(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col.URL(), "OTEL_METRIC_EXPORT_INTERVAL": "20"}
	sink := NewOTel(func(k string) string { return env[k] })
	defer sink.Shutdown(context.Background())
	if err := sink.Ended(agentSpan(KindLead, "lead", "", 0, 2, "completed")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(col.Metrics()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no metrics exported within 10 s at a 20 ms interval")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := col.Metrics()["atomic.agent.spawns"].GetSum(); !got.GetIsMonotonic() || got.GetAggregationTemporality() != 2 ||
		len(got.GetDataPoints()) != 1 || got.GetDataPoints()[0].GetAsInt() != 1 {
		t.Errorf("atomic.agent.spawns %v, want one cumulative monotonic point of 1", got)
	}
}

func TestAlwaysOffSamplerExportsNoSpansButStillTheMetrics(t *testing.T) {
	col := testkit.NewCollector(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col.URL(), "OTEL_TRACES_SAMPLER": "parentbased_always_off"}
	sink := NewOTel(func(k string) string { return env[k] })
	for _, s := range []Span{agentSpan(KindLead, "lead", "", 0, 3, "completed"), agentSpan(KindSubagent, "a", "lead", 1, 2, "error")} {
		if err := sink.Started(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []Span{agentSpan(KindSubagent, "a", "lead", 1, 2, "error"), agentSpan(KindLead, "lead", "", 0, 3, "completed")} {
		if err := sink.Ended(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(col.Spans()); n != 0 {
		t.Errorf("%d spans exported with always_off", n)
	}
	if errs := col.Metrics()["atomic.agent.errors"].GetSum().GetDataPoints(); len(errs) != 1 || errs[0].GetAsInt() != 1 {
		t.Errorf("atomic.agent.errors %v, want 1", errs)
	}
}

func TestTraceIDRatioSamplerKeepsAllAtOneNoneAtZeroAndRefusesABadRatio(t *testing.T) {
	ids := [][16]byte{{}, {15: 1}, {8: 0x7f, 15: 0xff}, {8: 0xff, 9: 0xff, 15: 0xff}}
	for _, tt := range []struct {
		arg  string
		want bool
	}{{"1", true}, {"", true}, {"0", false}} {
		sample, err := newSampler(func(k string) string {
			return map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": tt.arg}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if got := sample(id); got != tt.want {
				t.Errorf("ratio %q, trace %x: sampled %v, want %v", tt.arg, id, got, tt.want)
			}
		}
	}
	for env, want := range map[[2]string]string{
		{"traceidratio", "2"}: `OTEL_TRACES_SAMPLER_ARG="2"`,
		{"sometimes", ""}:     `OTEL_TRACES_SAMPLER="sometimes"`,
	} {
		_, err := newSampler(func(k string) string {
			return map[string]string{"OTEL_TRACES_SAMPLER": env[0], "OTEL_TRACES_SAMPLER_ARG": env[1]}[k]
		})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("sampler %v: error %v, want one naming %s", env, err, want)
		}
	}
}

func TestHistogramCountsEachValueInTheBucketOfItsUpperBound(t *testing.T) {
	m := newMeter(at(0))
	h := m.instrument(histogram, "h", "", "s")
	c := m.instrument(intCounter, "c", "", "")
	for _, v := range []float64{0, 5, 5.1, 20000} {
		m.add(h, 0, v, attrStr("k", "v"))
	}
	m.add(c, 2, 0, attrStr("b", "1"), attrStr("a", "2"))
	m.add(c, -1, 0, attrStr("a", "2"), attrStr("b", "1")) // dropped, as the SDK's counters do
	m.add(c, 3, 0, attrStr("a", "2"), attrStr("b", "1"))
	snaps := m.collect()
	if len(snaps) != 2 {
		t.Fatalf("%d instruments collected, want 2", len(snaps))
	}
	p := snaps[0].points[0]
	want := make([]uint64, len(defaultBounds)+1)
	want[0], want[1], want[2], want[len(want)-1] = 1, 1, 1, 1
	if p.count != 4 || p.f != 20010.1 || p.min != 0 || p.max != 20000 || !equalCounts(p.buckets, want) {
		t.Errorf("histogram point %+v, want count 4, sum 20010.1, min 0, max 20000, buckets %v", p, want)
	}
	if cp := snaps[1].points; len(cp) != 1 || cp[0].n != 5 || cp[0].attrs[0].key != "a" {
		t.Errorf("counter points %+v, want one point of 5 with its attributes sorted", cp)
	}
}

func equalCounts(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestResourceTakesOTELResourceAttributesThenOTELServiceName(t *testing.T) {
	env := map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=svc, deployment.environment=a%20b,broken,=x",
		"OTEL_SERVICE_NAME": ""}
	get := func(attrs []kv, k string) any {
		for _, a := range attrs {
			if a.key == k {
				return a.val
			}
		}
		return nil
	}
	r := resourceAttrs(func(k string) string { return env[k] })
	if get(r, "service.name") != "svc" || get(r, "deployment.environment") != "a b" || get(r, "telemetry.sdk.language") != "go" {
		t.Errorf("resource %v: want service.name svc, deployment.environment %q, telemetry.sdk.language go", r, "a b")
	}
	env["OTEL_SERVICE_NAME"] = "named"
	if r := resourceAttrs(func(k string) string { return env[k] }); get(r, "service.name") != "named" {
		t.Errorf("service.name %v, want OTEL_SERVICE_NAME's named", get(r, "service.name"))
	}
	if r := resourceAttrs(func(string) string { return "" }); get(r, "service.name") != "atomic" {
		t.Errorf("default service.name %v, want atomic", get(r, "service.name"))
	}
}

func TestMoreSpansThanABatchAreAllExportedAndAnEndedSpanIsNotChangedAgain(t *testing.T) {
	col := testkit.NewCollector(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col.URL()}
	sink := NewOTel(func(k string) string { return env[k] })
	if err := sink.Started(agentSpan(KindLead, "lead", "", 0, 0, "")); err != nil {
		t.Fatal(err)
	}
	for i := range maxBatch + 10 {
		id := "a" + string(rune('0'+i%10)) + strings.Repeat("x", i/10)
		if err := sink.Ended(agentSpan(KindSubagent, id, "lead", 1, 2, "completed")); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Ended(agentSpan(KindLead, "lead", "", 0, 3, "completed")); err != nil {
		t.Fatal(err)
	}
	if err := sink.Ended(agentSpan(KindLead, "lead", "", 0, 9, "error")); err != nil {
		t.Fatal(err)
	}
	if err := sink.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := col.Spans()
	if len(spans) != maxBatch+11 {
		t.Fatalf("%d spans exported, want %d", len(spans), maxBatch+11)
	}
	for _, s := range spans {
		if s.Name == "invoke_agent lead" && (s.Status.GetCode() == 2 || time.Duration(s.EndTimeUnixNano-s.StartTimeUnixNano) != 3*time.Second) {
			t.Errorf("the lead's span was changed by a second end: status %v, %d ns", s.Status, s.EndTimeUnixNano-s.StartTimeUnixNano)
		}
	}
}

func TestABadExportIntervalTurnsExportOffNamingTheVariable(t *testing.T) {
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_METRIC_EXPORT_INTERVAL": "often"}
	sink := NewOTel(func(k string) string { return env[k] })
	err := sink.Started(agentSpan(KindLead, "lead", "", 0, 0, ""))
	if err == nil || !strings.Contains(err.Error(), `OTEL_METRIC_EXPORT_INTERVAL="often"`) {
		t.Errorf("Started: %v, want the variable named", err)
	}
}
