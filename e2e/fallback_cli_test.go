//go:build unix

package e2e

import (
	"strings"
	"testing"
)

// TestFallbackModelReachesAClaudeCodeLead runs the real Claude Code as the
// lead against a loopback whose main model is always overloaded: with
// --fallback-model the CLI's own fallback answers; without it the run fails.
func TestFallbackModelReachesAClaudeCodeLead(t *testing.T) {
	bin := claudeBin(t)
	const scenario = `
rules:
  - name: overloaded
    match: {model: claude-test-model}
    respond: {error: {status: 529, type: overloaded_error, message: "Overloaded"}}
  - name: fallback
    match: {model: claude-small-model}
    respond: {text: "FALLBACK ANSWERED"}
  - name: other
    respond: {text: "ok"}
`
	srv := server(t, scenario)
	r := runBackend(t, srv.URL(), bin, "--fallback-model", "claude-small-model", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "FALLBACK ANSWERED") {
		t.Fatalf("code %d, stdout %q, stderr %q: want the fallback model's answer", r.code, r.stdout, r.stderr)
	}
	var asked bool
	for _, e := range srv.Log() {
		asked = asked || e.Rule == "fallback"
	}
	if !asked {
		t.Fatalf("no request reached the fallback model: %+v", srv.Log())
	}
}

// TestFallbackModelWithACLIWithoutOneIsSaidOnce: Codex has no fallback
// model, so the flag is named once on stderr instead of ignored silently;
// the run itself goes on.
func TestFallbackModelWithACLIWithoutOneIsSaidOnce(t *testing.T) {
	bin := codexBin(t)
	srv := server(t, "rules:\n  - {name: answer, respond: {text: \"CODEX ANSWERED\"}}\n")
	r, _ := runCodex(t, srv.URL()+"/v1", bin, "--fallback-model", "gpt-small", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "CODEX ANSWERED") {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	const want = "--fallback-model gpt-small is ignored: the codex CLI has no fallback model"
	if n := strings.Count(r.stderr, want); n != 1 {
		t.Fatalf("stderr says %q %d times, want once: %q", want, n, r.stderr)
	}
}
