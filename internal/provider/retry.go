package provider

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryPolicy bounds retries of a model request: exponential backoff with
// full jitter, honouring retry-after, within MaxAttempts and MaxTotal.
type RetryPolicy struct {
	MaxAttempts int           // attempts in all, first included (default 5)
	BaseDelay   time.Duration // first backoff (default 1s)
	MaxDelay    time.Duration // cap on one wait (default 20s)
	MaxTotal    time.Duration // cap on all waiting (default 60s)
}

// DefaultRetry is a few attempts within about a minute.
func DefaultRetry() RetryPolicy {
	return RetryPolicy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 20 * time.Second, MaxTotal: 60 * time.Second}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetry()
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.MaxTotal <= 0 {
		p.MaxTotal = d.MaxTotal
	}
	return p
}

// Delay is the wait before attempt n+1 after attempt n (1-based) failed
// with err: retry-after when the server gave one, else full-jitter backoff.
func (p RetryPolicy) Delay(n int, err error) time.Duration {
	p = p.withDefaults()
	var ae *APIError
	if errors.As(err, &ae) && ae.RetryAfter > 0 {
		return min(ae.RetryAfter, p.MaxDelay)
	}
	ceil := p.BaseDelay << (n - 1)
	if ceil <= 0 || ceil > p.MaxDelay {
		ceil = p.MaxDelay
	}
	// Full jitter, but never less than half the ceiling so retries do not
	// hammer the server back to back.
	return ceil/2 + rand.N(ceil/2+1)
}

// Do runs attempt until it succeeds, fails with a non-retryable error, or
// the policy is spent. Each retry is announced to on as a ChunkRetry.
func (p RetryPolicy) Do(ctx context.Context, on func(Chunk), attempt func(context.Context) (*Response, error)) (*Response, error) {
	p = p.withDefaults()
	var waited time.Duration
	for n := 1; ; n++ {
		resp, err := attempt(ctx)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !IsRetryable(err) {
			return nil, err
		}
		if n >= p.MaxAttempts {
			return nil, fmt.Errorf("gave up after %d attempts: %w", n, err)
		}
		d := p.Delay(n, err)
		if waited+d > p.MaxTotal {
			return nil, fmt.Errorf("gave up after %d attempts (retry budget of %s spent): %w", n, p.MaxTotal, err)
		}
		waited += d
		if on != nil {
			on(Chunk{Kind: ChunkRetry, Attempt: n + 1, Err: err})
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
