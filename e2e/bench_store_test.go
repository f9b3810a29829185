//go:build unix

package e2e

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// BenchmarkStoreStartCost: process start to the first model request with
// the session store on (a warm store holding earlier sessions) and off
// (--no-session-persistence), run back to back in alternating order; the
// figure is the median of the pairs' differences. Budget: under 2 ms.
func BenchmarkStoreStartCost(b *testing.B) {
	srv := server(b, "rules: [{respond: {text: hi}}]")
	state, dir := b.TempDir(), b.TempDir()
	first := func(args ...string) time.Duration {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		n := len(srv.Log())
		cmd := withState(command(b, ctx, srv, "anthropic", dir, append([]string{"-p", "hi"}, args...)...), state)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		start := time.Now()
		if err := cmd.Run(); err != nil || errb.Len() > 0 {
			b.Fatalf("atomic: %v: %s", err, errb.String())
		}
		log := srv.Log()
		if len(log) <= n {
			b.Fatal("no model request")
		}
		return log[n].Start.Sub(start)
	}
	first() // the store exists and is migrated before measuring
	var diffs, on, off []time.Duration
	for i := 0; i < b.N; i++ {
		var a, z time.Duration
		if i%2 == 0 {
			a, z = first(), first("--no-session-persistence")
		} else {
			z, a = first("--no-session-persistence"), first()
		}
		on, off, diffs = append(on, a), append(off, z), append(diffs, a-z)
	}
	b.ReportMetric(ms(median(diffs)), "ms-added")
	b.ReportMetric(ms(median(on)), "ms-store-on")
	b.ReportMetric(ms(median(off)), "ms-store-off")
}
