//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
)

// BenchmarkNATSFanOut1000x1s: 1,000 sub-agents, each answering after 1 s,
// on 4 local worker processes (250 at once each), whole headless run of
// the lead. Budget: under 2.5 s wall, lead peak RSS under 150 MB.
func BenchmarkNATSFanOut1000x1s(b *testing.B) {
	srv := server(b, natsFanOut(1000, 1000))
	url := natsServer(b)
	repo, clones := leadRepo(b, 4)
	for i, c := range clones {
		startWorker(b, url, srv, c, fmt.Sprintf("worker-%d", i+1), 250, "--nats-heartbeat", "2s")
	}
	var wall []time.Duration
	peak := 0.0
	for range b.N {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		m := runMeasuredCmd(b, srv, lead(b, ctx, srv, repo, url, "--nats-heartbeat", "2s", "--max-subagents", "1000", "-p", "fan out"))
		cancel()
		if n := strings.Count(m.Out, `"type":"subagent.complete"`); n != 1000 {
			b.Fatalf("%d sub-agents completed, want 1000", n)
		}
		wall = append(wall, m.Wall)
		peak = max(peak, m.MaxRSSMB)
	}
	b.ReportMetric(median(wall).Seconds(), "s-wall")
	b.ReportMetric(peak, "MB-lead-peak-RSS")
}

// BenchmarkNATSDispatchLatency: the time from a task call's tool.start to
// its sub-agent's model request, one task at a time (no queueing), on a
// worker minus in-process: the median over 15 runs of each. Budget: under
// 5 ms added.
func BenchmarkNATSDispatchLatency(b *testing.B) {
	const runs = 15
	srv := server(b, natsFanOut(1, 10))
	url := natsServer(b)
	repo, clones := leadRepo(b, 1)
	startWorker(b, url, srv, clones[0], "worker-1", 1)
	var added []time.Duration
	for range b.N {
		var local, remote []time.Duration
		for range runs {
			local = append(local, dispatchLatency(b, srv, repo, 1))
			remote = append(remote, dispatchLatency(b, srv, repo, 1, "--nats", url))
		}
		slices.Sort(local)
		slices.Sort(remote)
		b.Logf("median tool.start to model request: in-process %s, on a worker %s", local[runs/2], remote[runs/2])
		added = append(added, remote[runs/2]-local[runs/2])
	}
	slices.Sort(added)
	b.ReportMetric(float64(added[len(added)/2].Microseconds())/1000, "ms-added-median")
}

// dispatchLatency runs natsFanOut(n) once and returns the median time
// from each task's tool.start to its sub-agent's first model request.
func dispatchLatency(b *testing.B, srv *loopback.Server, repo string, n int, args ...string) time.Duration {
	b.Helper()
	before := len(srv.Log())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	full := append([]string{"--nats-heartbeat", natsHeartbeat, "--output-format", "stream-json", "--max-subagents", fmt.Sprint(n),
		"-p", "fan out"}, args...)
	cmd := command(b, ctx, srv, "anthropic", repo, full...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("lead: %v: %s", err, errb.String())
	}
	called := map[string]time.Time{} // prompt marker → tool.start time
	for _, e := range events(b, out.String()) {
		if e.Type != event.ToolStart {
			continue
		}
		d, _ := event.Payload[event.ToolStartData](e.Data)
		if d.Name == "task" {
			var in struct{ Prompt string }
			_ = json.Unmarshal(d.Input, &in)
			called[strings.Fields(in.Prompt)[0]] = e.Event().Time
		}
	}
	var lat []time.Duration
	for _, l := range srv.Log()[before:] {
		if !strings.HasPrefix(l.Rule, "sub-") || len(l.Messages) == 0 {
			continue
		}
		marker := strings.Fields(l.Messages[0].Text)[0]
		if at, ok := called[marker]; ok {
			lat = append(lat, l.Start.Sub(at))
		}
	}
	if len(lat) != n {
		b.Fatalf("matched %d sub-agent requests to their calls, want %d", len(lat), n)
	}
	slices.Sort(lat)
	return lat[n/2]
}
