package claudecode

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
)

var userEnviron = []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-ant-user", "ANTHROPIC_AUTH_TOKEN=tok", "CLAUDE_CODE_OAUTH_TOKEN=oauth",
	"OPENAI_API_KEY=sk-openai", "OPENROUTER_API_KEY=or", "ATOMIC_NATS_TOKEN=nats", "GITHUB_TOKEN=gh"}

func TestClaudeCodeGetsAnthropicsCredentialsButNoOtherProvidersKeys(t *testing.T) {
	tests := []struct {
		name  string
		cfg   backend.Config
		want  []string
		avoid []string
	}{
		{"user's login", backend.Config{},
			[]string{"ANTHROPIC_API_KEY=sk-ant-user", "ANTHROPIC_AUTH_TOKEN=tok", "CLAUDE_CODE_OAUTH_TOKEN=oauth", "GITHUB_TOKEN=gh", "PATH=/bin"},
			[]string{"OPENAI_API_KEY=sk-openai", "OPENROUTER_API_KEY=or", "ATOMIC_NATS_TOKEN=nats"}},
		{"Atomic's endpoint and key", backend.Config{BaseURL: "http://127.0.0.1:9", APIKey: "sk-atomic"},
			[]string{"ANTHROPIC_BASE_URL=http://127.0.0.1:9", "ANTHROPIC_API_KEY=sk-atomic"},
			[]string{"OPENAI_API_KEY=sk-openai", "ATOMIC_NATS_TOKEN=nats"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := (&Session{cfg: tt.cfg}).envFrom(userEnviron, "")
			for _, w := range tt.want {
				if !slices.Contains(env, w) {
					t.Errorf("env lacks %s: %q", w, env)
				}
			}
			for _, a := range tt.avoid {
				if slices.Contains(env, a) {
					t.Errorf("env has %s", a)
				}
			}
		})
	}
}

// The real check: the process started as Claude Code (here a script that
// records its environment) gets Anthropic's key, not OpenAI's.
func TestTheClaudeCodeProcessStartsWithoutOpenAIsKey(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	bin := filepath.Join(dir, "claude")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nenv > "+out+".tmp && mv "+out+".tmp "+out+"\nexec cat > /dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-keep")
	t.Setenv("OPENAI_API_KEY", "sk-openai-drop")
	t.Setenv("ATOMIC_NATS_TOKEN", "nats-drop")
	s, err := New(backend.Config{SessionID: "s1", Bin: bin, Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var env []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if env, err = os.ReadFile(out); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the process never wrote its environment: %v", err)
		}
	}
	if !strings.Contains(string(env), "ANTHROPIC_API_KEY=sk-ant-keep") {
		t.Errorf("Claude Code lacks ANTHROPIC_API_KEY:\n%s", env)
	}
	for _, secret := range []string{"sk-openai-drop", "nats-drop"} {
		if strings.Contains(string(env), secret) {
			t.Errorf("Claude Code's environment holds %s", secret)
		}
	}
}
