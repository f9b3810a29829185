//go:build unix

package codex

import (
	"context"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestRealCodexAsksTheModelForTheAgentsEffort(t *testing.T) {
	bin := realCodex(t)
	srv := testkit.Loopback(t, "rules:\n  - {name: answer, respond: {text: ok}}\n")
	for _, tc := range []struct {
		effort provider.Effort
		want   string
	}{{provider.EffortLow, "low"}, {provider.EffortMax, "high"}} {
		s, err := New(backend.Config{SessionID: "s1", AgentID: "lead", Workspace: t.TempDir(), Bin: bin, BaseURL: srv.URL() + "/v1",
			Model: "gpt-5", Gate: allowAll(t), Sink: &recorder{}, Effort: tc.effort})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		_, err = s.Run(ctx, "hi")
		cancel()
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		log := srv.Log()
		if got := log[len(log)-1].ReasoningEffort; got != tc.want {
			t.Errorf("--effort %s: the model was asked for reasoning effort %q, want %q", tc.effort, got, tc.want)
		}
	}
}
