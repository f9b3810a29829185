package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestDelayBackoffStaysWithinBounds(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 20, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, MaxTotal: time.Minute}
	cases := []struct {
		n    int
		ceil time.Duration
	}{
		{1, 100 * time.Millisecond},
		{2, 200 * time.Millisecond},
		{3, 400 * time.Millisecond},
		{4, 800 * time.Millisecond},
		{5, time.Second},
		{12, time.Second},
		{70, time.Second}, // far past any shift width: must not overflow
	}
	for _, c := range cases {
		t.Run(fmt.Sprint("attempt", c.n), func(t *testing.T) {
			seen := map[time.Duration]bool{}
			for range 200 {
				d := p.Delay(c.n, errors.New("boom"))
				if d < c.ceil/2 || d > c.ceil {
					t.Fatalf("Delay(%d) = %v, want within [%v, %v]", c.n, d, c.ceil/2, c.ceil)
				}
				seen[d] = true
			}
			if len(seen) < 2 {
				t.Errorf("Delay(%d) gave the same value 200 times: no jitter", c.n)
			}
		})
	}
}

func TestDelayHonoursRetryAfterCappedAtMaxDelay(t *testing.T) {
	p := RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 3 * time.Second}
	cases := []struct {
		retryAfter, want time.Duration
	}{
		{1500 * time.Millisecond, 1500 * time.Millisecond},
		{3 * time.Second, 3 * time.Second},
		{90 * time.Second, 3 * time.Second},
	}
	for _, c := range cases {
		err := &APIError{Provider: "x", StatusCode: 429, RetryAfter: c.retryAfter}
		if got := p.Delay(1, fmt.Errorf("wrapped: %w", err)); got != c.want {
			t.Errorf("retry-after %v: Delay = %v, want %v", c.retryAfter, got, c.want)
		}
	}
}

func TestDelayUsesDefaultsForZeroPolicy(t *testing.T) {
	d := RetryPolicy{}.Delay(1, errors.New("x"))
	def := DefaultRetry()
	if d < def.BaseDelay/2 || d > def.BaseDelay {
		t.Errorf("zero policy Delay(1) = %v, want within [%v, %v]", d, def.BaseDelay/2, def.BaseDelay)
	}
}

// fastPolicy retries quickly enough for tests.
func fastPolicy(attempts int) RetryPolicy {
	return RetryPolicy{MaxAttempts: attempts, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, MaxTotal: time.Second}
}

func TestDoRetriesRetryableErrorsAndAnnouncesEachRetry(t *testing.T) {
	calls := 0
	var chunks []Chunk
	resp, err := fastPolicy(5).Do(context.Background(), func(c Chunk) { chunks = append(chunks, c) }, func(context.Context) (*Response, error) {
		calls++
		if calls < 3 {
			return nil, &APIError{Provider: "x", StatusCode: 529, Type: "overloaded_error"}
		}
		return &Response{Text: "ok"}, nil
	})
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if resp.Text != "ok" || calls != 3 {
		t.Fatalf("got %q after %d calls, want ok after 3", resp.Text, calls)
	}
	if len(chunks) != 2 {
		t.Fatalf("got %d chunks, want 2 ChunkRetry", len(chunks))
	}
	for i, c := range chunks {
		if c.Kind != ChunkRetry || c.Attempt != i+2 || c.Err == nil {
			t.Errorf("chunk %d = %+v, want ChunkRetry for attempt %d with its error", i, c, i+2)
		}
	}
}

func TestDoGivesUpAfterMaxAttemptsNamingThem(t *testing.T) {
	calls := 0
	_, err := fastPolicy(3).Do(context.Background(), nil, func(context.Context) (*Response, error) {
		calls++
		return nil, &APIError{Provider: "x", StatusCode: 500, Message: "internal"}
	})
	if calls != 3 {
		t.Fatalf("attempt ran %d times, want 3", calls)
	}
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("err = %v, want it to name 3 attempts and the last error", err)
	}
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 500 {
		t.Errorf("err does not wrap the APIError: %v", err)
	}
}

func TestDoRespectsMaxTotal(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 1000, BaseDelay: 40 * time.Millisecond, MaxDelay: 40 * time.Millisecond, MaxTotal: 100 * time.Millisecond}
	start := time.Now()
	calls := 0
	_, err := p.Do(context.Background(), nil, func(context.Context) (*Response, error) {
		calls++
		return nil, &APIError{Provider: "x", StatusCode: 503}
	})
	elapsed := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "retry budget") {
		t.Fatalf("err = %v, want the retry budget named", err)
	}
	if elapsed > 500*time.Millisecond {
		t.Errorf("Do took %v with a 100ms budget", elapsed)
	}
	// Waits are 20-40ms each, so 100ms allows between 2 and 5 of them.
	if calls < 3 || calls > 6 {
		t.Errorf("attempt ran %d times, want 3 to 6 within a 100ms budget", calls)
	}
}

func TestDoDoesNotRetryPermanentErrors(t *testing.T) {
	cases := map[string]error{
		"401":                    &APIError{Provider: "x", StatusCode: 401},
		"404":                    &APIError{Provider: "x", StatusCode: 404},
		"stream after tool call": &StreamError{Provider: "x", AfterToolCall: true, Err: errors.New("cut")},
		"plain error":            errors.New("bad request shape"),
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			calls := 0
			var chunks []Chunk
			_, err := fastPolicy(5).Do(context.Background(), func(c Chunk) { chunks = append(chunks, c) }, func(context.Context) (*Response, error) {
				calls++
				return nil, want
			})
			if calls != 1 || len(chunks) != 0 {
				t.Errorf("ran %d times with %d retry chunks, want once and none", calls, len(chunks))
			}
			if err != want {
				t.Errorf("err = %v, want the attempt's error unchanged", err)
			}
		})
	}
}

func TestDoReturnsPromptlyWhenCancelledDuringBackoff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := RetryPolicy{MaxAttempts: 5, BaseDelay: 10 * time.Second, MaxDelay: 10 * time.Second, MaxTotal: time.Minute}
	start := time.Now()
	_, err := p.Do(ctx, func(c Chunk) {
		if c.Kind == ChunkRetry {
			cancel()
		}
	}, func(context.Context) (*Response, error) {
		return nil, &APIError{Provider: "x", StatusCode: 500}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("Do took %v after cancel", time.Since(start))
	}
}

func TestIsRetryable(t *testing.T) {
	inner := &APIError{Provider: "x", StatusCode: 529}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"400", &APIError{StatusCode: 400}, false},
		{"401", &APIError{StatusCode: 401}, false},
		{"403", &APIError{StatusCode: 403}, false},
		{"404", &APIError{StatusCode: 404}, false},
		{"408", &APIError{StatusCode: 408}, true},
		{"429", &APIError{StatusCode: 429}, true},
		{"500", &APIError{StatusCode: 500}, true},
		{"529", &APIError{StatusCode: 529}, true},
		{"wrapped 503", fmt.Errorf("ctx: %w", &APIError{StatusCode: 503}), true},
		{"stream broke before tool call", &StreamError{Err: errors.New("EOF")}, true},
		{"stream broke after tool call", &StreamError{AfterToolCall: true, Err: errors.New("EOF")}, false},
		{"overload after tool call", &StreamError{AfterToolCall: true, Err: inner}, false},
		{"connection refused", &ConnError{Err: errors.New("connection refused")}, true},
		{"cancelled", context.Canceled, false},
		{"other", errors.New("x"), false},
	}
	for _, c := range cases {
		if got := IsRetryable(c.err); got != c.want {
			t.Errorf("%s: IsRetryable = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 11, 20, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After": "7", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"bad milliseconds fall back", map[string]string{"Retry-After": "2", "Retry-After-Ms": "soon"}, 2 * time.Second},
		{"http date", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"garbage", map[string]string{"Retry-After": "later"}, 0},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.header {
			h.Set(k, v)
		}
		if got := ParseRetryAfter(h, now); got != c.want {
			t.Errorf("%s: ParseRetryAfter = %v, want %v", c.name, got, c.want)
		}
	}
}
