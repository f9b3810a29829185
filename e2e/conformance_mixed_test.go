//go:build unix

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
)

// conformMixed: a native lead hands one part to a worker whose agent file
// names a backend and no model; the loopback knows one model only, the
// lead's, so a sub-agent on another model (a CLI's default) gets a 404.
func conformMixed() string {
	var b strings.Builder
	b.WriteString("models: [claude-test-model]\nrules:\n")
	for _, be := range conformBackends {
		up := strings.ToUpper(be.name)
		b.WriteString("  - name: lead-final-" + be.name + "\n    match: {tool_results_contain_all: [done " + up + "]}\n    respond: {text: \"The worker reported done " + up + ".\"}\n")
		b.WriteString("  - name: sub-" + be.name + "\n    match: {last_user_contains: \"SUB-" + up + ":\"}\n    respond: {text: \"done " + up + "\"}\n")
		b.WriteString("  - name: lead-spawn-" + be.name + "\n    match: {last_user_contains: \"MIXED-" + up + "\", has_tool_results: false}\n    respond:\n      tool_calls:\n")
		b.WriteString("        - {name: task, input: {description: \"" + be.name + " part\", prompt: \"SUB-" + up + ": report that you are done. Use no tools.\", subagent_type: " + be.name + "-worker}}\n")
	}
	b.WriteString("  - name: other\n    respond: {text: OK.}\n")
	return b.String()
}

func TestConformanceASubagentOnAnyBackendInheritsTheLeadsModelAndEndpoint(t *testing.T) {
	srv := server(t, conformMixed())
	lead := conformBackends[0] // native, on the loopback's Anthropic API
	eachBackend(t, func(t *testing.T, b conformBackend) {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		run := lead.command(t, ctx, srv.URL(), "-p", "MIXED-"+strings.ToUpper(b.name)+": hand the part to the worker.",
			"--output-format", "stream-json", "--permission-mode", "bypassPermissions")
		agents := filepath.Join(run.dir, ".atomic", "agents")
		if err := os.MkdirAll(agents, 0o755); err != nil {
			t.Fatal(err)
		}
		file := "---\nname: " + b.name + "-worker\ndescription: Works in " + b.name + ".\nbackend: " + b.name + "\n---\nYou are a worker.\n"
		if err := os.WriteFile(filepath.Join(agents, b.name+"-worker.md"), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		// The CLI is found on PATH; no OpenAI setting is in the
		// environment, so the lead's endpoint is the only one there is.
		path := os.Getenv("PATH")
		if b.cli != nil {
			path = filepath.Dir(b.cli(t)) + string(os.PathListSeparator) + path
		}
		env := []string{"PATH=" + path}
		for _, kv := range run.cmd.Env {
			if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "OPENAI_") {
				env = append(env, kv)
			}
		}
		run.cmd.Env = env
		n := len(srv.Log())
		r := runCmd(t, run.cmd)
		evs := events(t, r.stdout)
		if r.code != 0 || len(evs) == 0 || evs[len(evs)-1].Type != event.Complete {
			t.Fatalf("exit %d, stderr %q: want a finished run", r.code, r.stderr)
		}
		if d := data[event.CompleteData](t, evs[len(evs)-1]); d.IsError {
			t.Errorf("complete %+v, want success", d)
		}
		st := replay(evs, func(i int, e event.Raw, st *lifecycle.State) {
			if e.Type == event.SubagentStart {
				if d := data[event.SubagentStartData](t, e); d.Backend != b.name {
					t.Errorf("subagent.start of %s names backend %q, want %s", e.AgentID, d.Backend, b.name)
				}
			}
		})
		recs := st.Records()
		want := "done " + strings.ToUpper(b.name)
		if len(recs) != 1 || recs[0].Status != lifecycle.Completed || !strings.Contains(recs[0].Result, want) {
			t.Fatalf("agents %+v, want the one worker completed with %q", recs, want)
		}
		log := srv.Log()[n:]
		if len(loopback.ByRule(log, "sub-"+b.name)) == 0 {
			t.Errorf("the worker's request never reached the lead's endpoint")
		}
		// (Claude Code also sends a request the loopback cannot parse, a
		// message role it does not know; it names no model there.)
		for _, e := range log {
			if (e.Model != "" && e.Model != lead.model) || e.Status == 404 {
				t.Errorf("%s %s asked model %q (status %d, %s), want the lead's %s", e.Method, e.Path, e.Model, e.Status, e.Outcome, lead.model)
			}
		}
	})
}
