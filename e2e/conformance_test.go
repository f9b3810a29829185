//go:build unix

package e2e

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

// conformRefused answers every model request with the HTTP error status.
func conformRefused(status int, typ string) string {
	return `
rules:
  - name: refused
    respond: {error: {status: ` + strconv.Itoa(status) + `, type: ` + typ + `, message: "CONFORM-REFUSED"}}
`
}

// checkFailedRun checks a run whose model call failed: the lead's
// turn.end says stop_reason error, the one complete (last) says is_error,
// and atomic exits 1.
func checkFailedRun(t *testing.T, r result, evs []event.Raw) {
	t.Helper()
	if r.code != 1 {
		t.Errorf("exit status %d, want 1; stderr %q; stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	te, ok := lastOf(evs, event.TurnEnd)
	if !ok {
		t.Errorf("no turn.end in the stream")
	} else if d := data[event.TurnEndData](t, te); d.StopReason != "error" {
		t.Errorf("turn.end %+v, want stop_reason error", d)
	}
	completes := 0
	for _, e := range evs {
		if e.Type == event.Complete {
			completes++
		}
	}
	if completes != 1 || evs[len(evs)-1].Type != event.Complete {
		t.Fatalf("%d complete events (stream of %d), want one, last", completes, len(evs))
	}
	if d := data[event.CompleteData](t, evs[len(evs)-1]); !d.IsError {
		t.Errorf("complete %+v, want is_error", d)
	}
}

func TestConformanceAFailedModelCallEndsTheTurnWithAnErrorAndExits1(t *testing.T) {
	// The loopback refuses every request: once with 400, once with 401;
	// then a base URL under which nothing is served (404).
	bad := server(t, conformRefused(400, "invalid_request_error"))
	unauth := server(t, conformRefused(401, "authentication_error"))
	fine := server(t, "rules:\n  - name: fine\n    respond: {text: CONFORM-OK}\n")
	eachBackend(t, func(t *testing.T, b conformBackend) {
		for _, c := range []struct{ name, url string }{
			{"400", bad.URL() + "/v1"},
			{"401", unauth.URL() + "/v1"},
			{"404", fine.URL() + "/no-such-api/v1"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r, evs := b.run(t, c.url, "-p", "CONFORM: say hello.", "--output-format", "stream-json")
				checkFailedRun(t, r, evs)
			})
		}
	})
}

// conformPaths are the request paths of each API under the loopback's root.
var conformPaths = map[string][]string{
	"anthropic": {"/v1/messages"},
	"openai":    {"/v1/chat/completions", "/v1/responses"},
}

func TestConformanceEveryBackendReachesTheAPIWhetherTheBaseURLEndsInV1OrNot(t *testing.T) {
	srv := server(t, "rules:\n  - name: fine\n    respond: {text: CONFORM-OK}\n")
	eachBackend(t, func(t *testing.T, b conformBackend) {
		for name, base := range map[string]string{"host": srv.URL(), "v1": srv.URL() + "/v1/"} {
			t.Run(name, func(t *testing.T) {
				n := len(srv.Log())
				r, evs := b.run(t, base, "-p", "CONFORM: say hello.", "--output-format", "stream-json")
				if r.code != 0 || len(evs) == 0 || evs[len(evs)-1].Type != event.Complete {
					t.Fatalf("--base-url %s: exit %d, stderr %q: want a finished run", base, r.code, r.stderr)
				}
				if d := data[event.CompleteData](t, evs[len(evs)-1]); d.IsError || !strings.Contains(d.Result, "CONFORM-OK") {
					t.Errorf("--base-url %s: complete %+v, want the model's answer", base, d)
				}
				log := srv.Log()[n:]
				if len(log) == 0 {
					t.Fatalf("--base-url %s: no model request reached the loopback", base)
				}
				for _, e := range log {
					if !slices.Contains(conformPaths[b.api], e.Path) {
						t.Errorf("--base-url %s: %s %s (status %d), want %v", base, e.Method, e.Path, e.Status, conformPaths[b.api])
					}
				}
			})
		}
	})
}

func TestConformanceTheRunsTokenTotalOnlyRisesAndEqualsCompleteUsage(t *testing.T) {
	eachBackend(t, func(t *testing.T, b conformBackend) {
		srv := server(t, b.fanOut)
		r, evs := b.run(t, srv.URL(), "-p", b.fanOutPrompt, "--output-format", "stream-json", "--permission-mode", "bypassPermissions")
		if r.code != 0 || len(evs) == 0 || evs[len(evs)-1].Type != event.Complete {
			t.Fatalf("exit %d, stderr %q: want a finished run", r.code, r.stderr)
		}
		var last event.Usage
		updates := 0
		for i, e := range evs {
			if e.Type != event.UsageUpdate {
				continue
			}
			updates++
			d := data[event.UsageUpdateData](t, e)
			if d.Total.Total() < last.Total() || d.Total.InputTokens < last.InputTokens || d.Total.OutputTokens < last.OutputTokens {
				t.Errorf("event %d (usage.update of %s): the run's total fell from %+v to %+v", i, e.AgentID, last, d.Total)
			}
			last = d.Total
		}
		done := data[event.CompleteData](t, evs[len(evs)-1])
		if updates == 0 || last.Total() == 0 {
			t.Fatalf("%d usage.update events, last total %+v: the run's tokens are not counted", updates, last)
		}
		if done.Usage.Total() != last.Total() || done.Usage.InputTokens != last.InputTokens || done.Usage.OutputTokens != last.OutputTokens {
			t.Errorf("complete.usage %+v, the last usage.update's total %+v: want them equal", done.Usage, last)
		}
	})
}
