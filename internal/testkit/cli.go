package testkit

import (
	"os"
	"testing"
)

// ExternalCLI is the external agent CLI a test drives, named by the
// environment variable env, which .ci/run sets after installing the pinned
// npm package pkg. Without it the test skips, except under CI=true, where a
// missing CLI is a failure.
func ExternalCLI(t testing.TB, env, pkg string) string {
	t.Helper()
	bin := os.Getenv(env)
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: .ci/run installs %s and sets it", env, pkg)
		}
		t.Skipf("%s is not set (run .ci/run to install %s)", env, pkg)
	}
	return bin
}

// ClaudeCLI is the Claude Code CLI under test (ATOMIC_TEST_CLAUDE).
func ClaudeCLI(t testing.TB) string {
	return ExternalCLI(t, "ATOMIC_TEST_CLAUDE", "@anthropic-ai/claude-code")
}

// CodexCLI is the Codex CLI under test (ATOMIC_TEST_CODEX).
func CodexCLI(t testing.TB) string { return ExternalCLI(t, "ATOMIC_TEST_CODEX", "@openai/codex") }

// OpenCodeCLI is the OpenCode CLI under test (ATOMIC_TEST_OPENCODE).
func OpenCodeCLI(t testing.TB) string { return ExternalCLI(t, "ATOMIC_TEST_OPENCODE", "opencode-ai") }

// CopilotCLI is the GitHub Copilot CLI under test (ATOMIC_TEST_COPILOT).
func CopilotCLI(t testing.TB) string {
	return ExternalCLI(t, "ATOMIC_TEST_COPILOT", "@github/copilot")
}

// MCPEverything is the reference MCP server @modelcontextprotocol/server-everything
// (ATOMIC_TEST_MCP_EVERYTHING; serve it with the argument stdio).
func MCPEverything(t testing.TB) string {
	return ExternalCLI(t, "ATOMIC_TEST_MCP_EVERYTHING", "@modelcontextprotocol/server-everything")
}

// MCPFilesystem is the reference MCP server @modelcontextprotocol/server-filesystem
// (ATOMIC_TEST_MCP_FILESYSTEM; its arguments are the folders it may use).
func MCPFilesystem(t testing.TB) string {
	return ExternalCLI(t, "ATOMIC_TEST_MCP_FILESYSTEM", "@modelcontextprotocol/server-filesystem")
}

// ACPX is acpx, the headless ACP client from npm, as .ci/run installed it
// (ATOMIC_TEST_ACPX: its executable).
func ACPX(t testing.TB) string { return ExternalCLI(t, "ATOMIC_TEST_ACPX", "acpx") }

// ACPSDK is the folder where .ci/run installed the official TypeScript ACP
// library @agentclientprotocol/sdk (ATOMIC_TEST_ACP_SDK; it holds
// node_modules).
func ACPSDK(t testing.TB) string {
	return ExternalCLI(t, "ATOMIC_TEST_ACP_SDK", "@agentclientprotocol/sdk")
}
