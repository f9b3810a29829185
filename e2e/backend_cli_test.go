//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// runBackend runs `atomic run --backend claude-code` against srv's URL with
// a throwaway home, as a user would with the CLI installed.
func runBackend(t *testing.T, baseURL, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	home := t.TempDir()
	full := append([]string{"run", "--backend", "claude-code", "--backend-bin", bin, "--base-url", baseURL, "--model", "claude-test-model"}, args...)
	cmd := exec.CommandContext(ctx, binary, full...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "TMPDIR=" + home, "ANTHROPIC_API_KEY=test-key",
		"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	return runCmd(t, cmd)
}

func TestBackendClaudeCodeMissingCLISaysWhatToInstallAndExits1(t *testing.T) {
	r := runBackend(t, "http://127.0.0.1:9", filepath.Join(t.TempDir(), "no-such-claude"), "-p", "hi")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 1 || len(lines) != 1 || !strings.Contains(r.stderr, "no-such-claude") {
		t.Fatalf("code %d, stderr %q: want exit 1 and one line naming the missing binary", r.code, r.stderr)
	}
	// Not on PATH either: the line names the npm package to install.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "run", "--backend", "claude-code", "-p", "hi")
	cmd.Dir, cmd.Env = t.TempDir(), []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir()}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "@anthropic-ai/claude-code") || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
		t.Fatalf("err %v, stderr %q: want exit 1 and one line naming @anthropic-ai/claude-code", err, errb.String())
	}
}

func TestBackendClaudeCodeRunsThreeParallelSubagentsThroughAtomicRun(t *testing.T) {
	bin := claudeBin(t)
	srv := server(t, claudeFanOut)
	r := runBackend(t, srv.URL(), bin, "-p", "FANOUT: start three sub-agents in parallel.", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	if len(evs) == 0 || evs[len(evs)-1].Type != event.Complete {
		t.Fatalf("the stream does not end with complete")
	}
	var st lifecycle.State
	completes, lastStart, firstEnd := 0, -1, 1<<30
	sessions := map[string]string{}
	for i, e := range evs {
		st.Apply(e.Event())
		switch e.Type {
		case event.Complete:
			completes++
			if !st.Settled() {
				t.Fatalf("complete at event %d while agents are still at work", i)
			}
		case event.SubagentStart:
			lastStart = max(lastStart, i)
			if d := data[event.SubagentStartData](t, e); d.Backend != "claude-code" {
				t.Errorf("subagent.start of %s names backend %q", e.AgentID, d.Backend)
			}
		case event.SubagentComplete:
			firstEnd = min(firstEnd, i)
		}
		if strings.HasPrefix(e.AgentID, "general-purpose-") {
			if s, ok := sessions[e.AgentID]; ok && s != e.SessionID {
				t.Errorf("%s of %s has session %q, then %q", e.Type, e.AgentID, s, e.SessionID)
			}
			sessions[e.AgentID] = e.SessionID
		}
	}
	if completes != 1 {
		t.Fatalf("%d complete events, want 1", completes)
	}
	c := st.Counts()
	if c.Completed != 3 || c.Total() != 3 {
		t.Fatalf("agents %+v, want three completed", c)
	}
	if lastStart > firstEnd {
		t.Errorf("a sub-agent finished before the last one started: they did not run in parallel")
	}
}

func TestBackendClaudeCodeUsageReachesTheJSONResult(t *testing.T) {
	bin := claudeBin(t)
	srv := server(t, claudeFanOut)
	r := runBackend(t, srv.URL(), bin, "-p", "FANOUT: start three sub-agents in parallel.", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	var res struct {
		Usage  event.Usage `json:"usage"`
		Agents []struct {
			ID    string      `json:"id"`
			Usage event.Usage `json:"usage"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("json result: %v\n%s", err, r.stdout)
	}
	if res.Usage.Total() == 0 || len(res.Agents) != 3 {
		t.Fatalf("run usage %+v with %d agents: the CLI's usage is not counted", res.Usage, len(res.Agents))
	}
	var agents int64
	for _, a := range res.Agents {
		if a.Usage.Total() == 0 {
			t.Errorf("%s has no usage in the result", a.ID)
		}
		agents += a.Usage.Total()
	}
	if res.Usage.Total() < agents {
		t.Errorf("run usage %d below its agents' %d", res.Usage.Total(), agents)
	}
}
