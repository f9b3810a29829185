//go:build unix

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// recallScenario answers the follow-up with the code word only when the
// request still holds the first prompt: the CLI got its history back.
const recallScenario = `
rules:
  - {name: recall, match: {any_user_contains: "PAPAYA", last_user_contains: "what was the code word"}, respond: {text: "The code word was PAPAYA."}}
  - {name: forgot, match: {last_user_contains: "what was the code word"}, respond: {text: "I was never told one."}}
  - {name: remember, match: {last_user_contains: "REMEMBER"}, respond: {text: "Noted."}}
`

// cliIn runs `atomic run --backend name` in dir with the store in state
// and the CLI's own config (Claude Code's transcripts) in home, as one
// user's runs share them.
func cliIn(t *testing.T, name, baseURL, bin, home, state, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	full := append([]string{"run", "--backend", name, "--backend-bin", bin, "--base-url", baseURL, "--model", "test-model"}, args...)
	cmd := exec.CommandContext(ctx, binary, full...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_STATE_HOME=" + state,
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "TMPDIR=" + home, "ANTHROPIC_API_KEY=test-key", "OPENAI_API_KEY=test-key",
		"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"NO_COLOR=1", "LANG=C.UTF-8"}
	return runCmd(t, cmd)
}

func TestContinuingAnExternalCLILeadResumesTheCLIsConversationInTheSameSession(t *testing.T) {
	for _, c := range []struct {
		name string
		bin  func(testing.TB) string
		path string // the loopback's path for the CLI's API
	}{
		{"claude-code", claudeBin, ""},
		{"codex", codexBin, "/v1"},
		{"opencode", testkit.OpenCodeCLI, "/v1"},
		{"copilot", testkit.CopilotCLI, "/v1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := c.bin(t)
			srv := server(t, recallScenario)
			url := srv.URL() + c.path
			home, state, dir := t.TempDir(), t.TempDir(), t.TempDir()
			first := cliIn(t, c.name, url, bin, home, state, dir, "-p", "REMEMBER: the code word is PAPAYA", "--output-format", "json")
			if first.code != 0 || !strings.Contains(first.stdout, "Noted.") {
				t.Fatalf("first run: exit %d, stdout %q, stderr %q", first.code, first.stdout, first.stderr)
			}
			for _, resume := range [][]string{{"--continue"}, {"--resume", listSessions(t, state)[0].ID}} {
				r := cliIn(t, c.name, url, bin, home, state, dir, append(resume, "-p", "what was the code word?", "--output-format", "json")...)
				if r.code != 0 || !strings.Contains(r.stdout, "The code word was PAPAYA.") {
					t.Fatalf("%s: exit %d, stdout %q, stderr %q; want the answer only a CLI with its history gets", resume[0], r.code, r.stdout, r.stderr)
				}
			}
			list := listSessions(t, state)
			if len(list) != 1 || list[0].Status != "completed" || list[0].Title != "REMEMBER: the code word is PAPAYA" {
				t.Fatalf("sessions %+v; want the one session, completed, titled by the first prompt", list)
			}
			var results []string
			for _, e := range events(t, sessionsExport(t, state)) {
				if e.Type == event.Complete {
					results = append(results, data[event.CompleteData](t, e).Result)
				}
			}
			if want := "Noted.|The code word was PAPAYA.|The code word was PAPAYA."; strings.Join(results, "|") != want {
				t.Fatalf("the export's completes %q; want the three runs' %q", results, want)
			}
		})
	}
}
