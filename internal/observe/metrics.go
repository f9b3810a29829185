package observe

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// instKind is what an instrument aggregates.
type instKind int

const (
	intCounter instKind = iota
	floatCounter
	histogram
)

// defaultBounds are the SDK's (and the OpenTelemetry specification's)
// default explicit bucket boundaries.
var defaultBounds = []float64{0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000}

// instrument is a counter or histogram with its cumulative points, one per
// attribute set, in the order first recorded.
type instrument struct {
	name, desc, unit string
	kind             instKind
	points           map[string]*point
	order            []string
}

// point is one attribute set's totals.
type point struct {
	attrs    []kv
	n        int64   // intCounter
	f        float64 // floatCounter; histogram: the sum
	count    uint64  // histogram
	min, max float64
	buckets  []uint64
}

// meter holds the instruments; it is safe for concurrent use.
type meter struct {
	mu    sync.Mutex
	start time.Time // start of every cumulative point
	insts []*instrument
}

func newMeter(start time.Time) *meter { return &meter{start: start} }

func (m *meter) instrument(kind instKind, name, desc, unit string) *instrument {
	in := &instrument{name: name, desc: desc, unit: unit, kind: kind, points: map[string]*point{}}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.insts = append(m.insts, in)
	return in
}

// add records n (intCounter) or f (floatCounter, histogram) under attrs.
// A counter drops negative increments, as the SDK's do.
func (m *meter) add(in *instrument, n int64, f float64, attrs ...kv) {
	if (in.kind == intCounter && n < 0) || (in.kind == floatCounter && f < 0) {
		return
	}
	set, id := attrSet(attrs)
	m.mu.Lock()
	defer m.mu.Unlock()
	p := in.points[id]
	if p == nil {
		p = &point{attrs: set}
		if in.kind == histogram {
			p.buckets = make([]uint64, len(defaultBounds)+1)
		}
		in.points[id] = p
		in.order = append(in.order, id)
	}
	switch in.kind {
	case intCounter:
		p.n += n
	case floatCounter:
		p.f += f
	case histogram:
		if p.count == 0 || f < p.min {
			p.min = f
		}
		if p.count == 0 || f > p.max {
			p.max = f
		}
		p.count++
		p.f += f
		// Bucket i holds bounds[i-1] < f <= bounds[i].
		p.buckets[sort.SearchFloat64s(defaultBounds, f)]++
	}
}

// snapshot is one instrument's points as of a collection.
type snapshot struct {
	in     *instrument
	points []point
}

// collect copies every instrument that has points.
func (m *meter) collect() []snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []snapshot
	for _, in := range m.insts {
		if len(in.order) == 0 {
			continue
		}
		s := snapshot{in: in}
		for _, id := range in.order {
			p := *in.points[id]
			p.buckets = slices.Clone(p.buckets)
			s.points = append(s.points, p)
		}
		out = append(out, s)
	}
	return out
}
