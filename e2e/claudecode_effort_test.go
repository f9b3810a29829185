//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/backend/claudecode"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
)

// TestClaudeCodeIsGivenTheAgentsEffort runs the real CLI with and without
// an effort and reads the effort its requests carry (output_config.effort,
// which the loopback does not log: a proxy in front of it reads the
// bodies).
func TestClaudeCodeIsGivenTheAgentsEffort(t *testing.T) {
	bin := claudeBin(t)
	srv := server(t, "rules:\n  - {name: answer, respond: {text: ok}}\n")
	target, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent []string // output_config.effort of each request
	rp := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body struct {
			OutputConfig struct{ Effort string } `json:"output_config"`
		}
		if json.Unmarshal(b, &body) == nil {
			mu.Lock()
			sent = append(sent, body.OutputConfig.Effort)
			mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		rp.ServeHTTP(w, r)
	}))
	defer front.Close()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"), "TMPDIR": home,
		"DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1", "DISABLE_AUTOUPDATER": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	} {
		t.Setenv(k, v)
	}
	gate, err := permission.NewGate(permission.Options{Mode: permission.BypassPermissions})
	if err != nil {
		t.Fatal(err)
	}
	asked := func(e provider.Effort) []string {
		mu.Lock()
		sent = nil
		mu.Unlock()
		s, err := claudecode.New(backend.Config{SessionID: "s1", AgentID: "lead", Workspace: t.TempDir(), Bin: bin,
			Model: "claude-opus-4-5", BaseURL: front.URL, APIKey: "test-key", Gate: gate, Sink: &recorder{}, Effort: e})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := s.Run(ctx, "hi"); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), sent...)
	}
	// Claude Code's own default is high; low can only come from --effort.
	for _, got := range asked(provider.EffortNone) {
		if got == "low" {
			t.Fatalf("without an effort the CLI asked for low")
		}
	}
	got := asked(provider.EffortLow)
	if len(got) == 0 {
		t.Fatal("the CLI made no request")
	}
	for _, g := range got {
		if g != "low" {
			t.Errorf("with --effort low the CLI asked for %q (all: %v)", g, got)
		}
	}
}
