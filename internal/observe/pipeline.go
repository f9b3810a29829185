package observe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// maxBatch is the most spans sent in one request (the SDK's batch size).
const maxBatch = 512

// pipeline records spans and metrics and exports them over OTLP/HTTP from
// one goroutine: ended spans every spanDelay (sooner once maxBatch wait),
// metrics every metricEvery, and both at shutdown.
type pipeline struct {
	traces, metrics *otlpClient
	resource        []kv
	sample          func([16]byte) bool
	meter           *meter
	spanDelay       time.Duration
	metricEvery     time.Duration

	mu     sync.Mutex
	queue  []*span // ended and sampled, not yet sent
	bgErr  error   // the first failed export of the goroutine
	kick   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// newPipeline reads the OTEL_* variables and starts the export goroutine.
func newPipeline(getenv func(string) string, now time.Time) (*pipeline, error) {
	tc, err := newOTLPClient(getenv, "traces")
	if err != nil {
		return nil, err
	}
	mc, err := newOTLPClient(getenv, "metrics")
	if err != nil {
		return nil, err
	}
	sample, err := newSampler(getenv)
	if err != nil {
		return nil, err
	}
	spanDelay, err := envMillis(getenv, "OTEL_BSP_SCHEDULE_DELAY", 5*time.Second)
	if err != nil {
		return nil, err
	}
	metricEvery, err := envMillis(getenv, "OTEL_METRIC_EXPORT_INTERVAL", time.Minute)
	if err != nil {
		return nil, err
	}
	p := &pipeline{traces: tc, metrics: mc, resource: resourceAttrs(getenv), sample: sample,
		meter: newMeter(now), spanDelay: spanDelay, metricEvery: metricEvery,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p, nil
}

// ended queues s for export (when its trace is sampled).
func (p *pipeline) ended(s *span) {
	if !s.sampled || p.traces == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queue = append(p.queue, s)
	if len(p.queue) >= maxBatch {
		select {
		case p.kick <- struct{}{}:
		default:
		}
	}
}

func (p *pipeline) run() {
	defer close(p.done)
	spans := time.NewTicker(p.spanDelay)
	defer spans.Stop()
	metrics := time.NewTicker(p.metricEvery)
	defer metrics.Stop()
	for {
		var err error
		select {
		case <-p.stop:
			return
		case <-spans.C:
			err = p.flushSpans(context.Background())
		case <-p.kick:
			err = p.flushSpans(context.Background())
		case <-metrics.C:
			err = p.exportMetrics(context.Background(), time.Now())
		}
		if err != nil {
			p.mu.Lock()
			if p.bgErr == nil {
				p.bgErr = err
			}
			p.mu.Unlock()
		}
	}
}

// flushSpans sends the queued spans, maxBatch a request.
func (p *pipeline) flushSpans(ctx context.Context) error {
	p.mu.Lock()
	q := p.queue
	p.queue = nil
	p.mu.Unlock()
	var errs []error
	for len(q) > 0 {
		n := min(len(q), maxBatch)
		errs = append(errs, p.traces.post(ctx, tracesRequest(p.resource, q[:n])))
		q = q[n:]
	}
	return errors.Join(errs...)
}

// exportMetrics sends every instrument's cumulative points as of now.
func (p *pipeline) exportMetrics(ctx context.Context, now time.Time) error {
	snaps := p.meter.collect()
	if len(snaps) == 0 || p.metrics == nil {
		return nil
	}
	return p.metrics.post(ctx, metricsRequest(p.resource, snaps, p.meter.start, now))
}

// shutdown stops the goroutine, then sends what is left; it reports the
// goroutine's first failed export too. A second call does nothing.
func (p *pipeline) shutdown(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	select {
	case <-p.done:
	case <-ctx.Done():
		return fmt.Errorf("waiting for an export in flight: %w", ctx.Err())
	}
	err := errors.Join(p.bgErr, p.flushSpans(ctx), p.exportMetrics(ctx, time.Now()))
	for _, c := range []*otlpClient{p.traces, p.metrics} {
		if c != nil {
			c.http.CloseIdleConnections()
		}
	}
	return err
}
