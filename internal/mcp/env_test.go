package mcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/mcp/mcptest"
)

// A stdio server gets Atomic's environment without the provider keys and
// Atomic's own secrets, and its own env entries as written, a key among
// them when the user put one there.
func TestAStdioServerSeesNoProviderKeyButItsOwnEnvEntries(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-atomic")
	t.Setenv("OPENAI_API_KEY", "sk-openai-atomic")
	t.Setenv("ATOMIC_NATS_TOKEN", "nats-atomic")
	t.Setenv("ATOMIC_MCP_TEST_PLAIN", "passes")
	srv := mcptest.Stdio(t, "s")
	srv.Env["GITHUB_TOKEN"] = "ghp-own"
	srv.Env["OPENROUTER_API_KEY"] = "or-own" // a provider key the user gave this server on purpose
	m, set, _ := start(t, srv)
	m.Ready(context.Background(), 20*time.Second)
	for name, want := range map[string]string{
		"ANTHROPIC_API_KEY": "unset", "OPENAI_API_KEY": "unset", "ATOMIC_NATS_TOKEN": "unset",
		"ATOMIC_MCP_TEST_PLAIN": "passes", "GITHUB_TOKEN": "ghp-own", "OPENROUTER_API_KEY": "or-own",
	} {
		if got := run(t, set, "mcp__s__env", `{"name":"`+name+`"}`).Content; got != want {
			t.Errorf("the server sees %s = %q, want %q", name, got, want)
		}
	}
}
