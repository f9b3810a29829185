package observe

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Atomic's own span and metric recording, in place of the OpenTelemetry
// SDK (sdk/trace, sdk/metric, resource): the SDK and its API packages
// cost 1.8 MB of the binary (1.3 MB stripped) for one trace and six
// instruments per run. What the SDK did for them is kept: span and trace
// ids, parenting, attributes set at the end replacing those of the same
// key, error status, the OTEL_TRACES_SAMPLER samplers, batched span export
// every OTEL_BSP_SCHEDULE_DELAY, cumulative monotonic sums and
// explicit-bucket histograms (the SDK's default buckets, with min and max)
// exported every OTEL_METRIC_EXPORT_INTERVAL and at shutdown, and the
// resource from OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME. The
// pipeline (pipeline.go) and the wire encoding (otlp.go) send them.

// kv is an attribute: its value is a string, bool, int64 or float64.
type kv struct {
	key string
	val any
}

func attrStr(k, v string) kv           { return kv{k, v} }
func attrInt(k string, v int64) kv     { return kv{k, v} }
func attrFloat(k string, v float64) kv { return kv{k, v} }
func attrBool(k string, v bool) kv     { return kv{k, v} }

// setAttrs adds more to attrs; one of a key already there replaces it.
func setAttrs(attrs []kv, more ...kv) []kv {
	for _, m := range more {
		if i := slices.IndexFunc(attrs, func(a kv) bool { return a.key == m.key }); i >= 0 {
			attrs[i] = m
		} else {
			attrs = append(attrs, m)
		}
	}
	return attrs
}

// attrSet is attrs as a set: one per key (the last given wins), sorted by
// key, and its identity for aggregation.
func attrSet(attrs []kv) ([]kv, string) {
	set := setAttrs(nil, attrs...)
	slices.SortFunc(set, func(a, b kv) int { return cmp.Compare(a.key, b.key) })
	var id strings.Builder
	for _, a := range set {
		fmt.Fprintf(&id, "%s\x00%T\x00%v\x00", a.key, a.val, a.val)
	}
	return set, id.String()
}

// span is one recorded span.
type span struct {
	traceID   [16]byte
	spanID    [8]byte
	parentID  [8]byte // zero for a root span
	sampled   bool
	name      string
	start     time.Time
	end       time.Time
	attrs     []kv
	failed    bool
	statusMsg string
}

// Span kind and status codes of OTLP's trace.v1.Span.
const (
	spanKindInternal = 1
	statusError      = 2
)

// newSpan starts a span under parent (nil for a new trace). The trace's
// sampling decision is made at its root and inherited.
func newSpan(name string, start time.Time, parent *span, sample func([16]byte) bool, attrs []kv) *span {
	s := &span{name: name, start: start, attrs: attrs}
	if parent != nil {
		s.traceID, s.parentID, s.sampled = parent.traceID, parent.spanID, parent.sampled
	} else {
		for s.traceID == ([16]byte{}) {
			binary.BigEndian.PutUint64(s.traceID[:8], rand.Uint64())
			binary.BigEndian.PutUint64(s.traceID[8:], rand.Uint64())
		}
		s.sampled = sample(s.traceID)
	}
	for s.spanID == ([8]byte{}) {
		binary.BigEndian.PutUint64(s.spanID[:], rand.Uint64())
	}
	return s
}

// newSampler reads OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (the
// ratio of traceidratio, 1 when unset). Every span of a run is under the
// lead's root span, so a parent-based sampler decides as its root sampler.
func newSampler(getenv func(string) string) (func([16]byte) bool, error) {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	switch strings.TrimPrefix(name, "parentbased_") {
	case "", "always_on":
		return func([16]byte) bool { return true }, nil
	case "always_off":
		return func([16]byte) bool { return false }, nil
	case "traceidratio":
		ratio := 1.0
		if arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG")); arg != "" {
			r, err := strconv.ParseFloat(arg, 64)
			if err != nil || r < 0 || r > 1 {
				return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: want a ratio from 0 to 1", arg)
			}
			ratio = r
		}
		// As the SDK's TraceIDRatioBased: the trace id's low 63 bits
		// against the ratio's share of them.
		bound := uint64(ratio * (1 << 63))
		return func(id [16]byte) bool { return binary.BigEndian.Uint64(id[8:])>>1 < bound }, nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER=%q: want always_on, always_off, traceidratio or their parentbased_ forms", name)
}

// envMillis reads a positive duration in milliseconds from variable k.
func envMillis(getenv func(string) string, k string, def time.Duration) (time.Duration, error) {
	v := strings.TrimSpace(getenv(k))
	if v == "" {
		return def, nil
	}
	ms, err := strconv.Atoi(v)
	if err != nil || ms <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive number of milliseconds", k, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// resourceAttrs is the resource of the run's telemetry, sorted by key:
// service.name atomic, the telemetry.sdk.* attributes, then
// OTEL_RESOURCE_ATTRIBUTES (name=value pairs, values percent-decoded; a
// malformed pair is left out) and OTEL_SERVICE_NAME, later winning.
func resourceAttrs(getenv func(string) string) []kv {
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	attrs := []kv{attrStr("service.name", "atomic"), attrStr("telemetry.sdk.language", "go"),
		attrStr("telemetry.sdk.name", "atomic"), attrStr("telemetry.sdk.version", version)}
	for pair := range strings.SplitSeq(getenv("OTEL_RESOURCE_ATTRIBUTES"), ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if dv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
			attrs = setAttrs(attrs, attrStr(k, dv))
		}
	}
	if name := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); name != "" {
		attrs = setAttrs(attrs, attrStr("service.name", name))
	}
	set, _ := attrSet(attrs)
	return set
}
