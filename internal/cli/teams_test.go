package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestTeamToolsAreOfferedWithTeamsOrATeammateCapOrTheConfigAndNotByDefault(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		config string
		want   bool
	}{
		{name: "default"},
		{name: "--teams", args: []string{"--teams"}, want: true},
		{name: "--max-teammates", args: []string{"--max-teammates", "3"}, want: true},
		{name: "config teams", config: `{"teams": true}`, want: true},
		{name: "config max_teammates", config: `{"max_teammates": 2}`, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := testkit.Loopback(t, `rules: [{name: answer, respond: {text: "fixed"}}]`)
			dir := t.TempDir()
			env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": filepath.Join(dir, "state"),
				"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL()}
			if tc.config != "" {
				if err := os.MkdirAll(filepath.Join(dir, "config", "atomic"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "config", "atomic", "config.json"), []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out, errOut bytes.Buffer
			args := append([]string{"run", "--no-session-persistence", "--model", "test-model", "-p", "hi"}, tc.args...)
			code := Run(context.Background(), args, IOStreams{
				In: strings.NewReader(""), Out: &out, Err: &errOut, Getenv: func(k string) string { return env[k] }, Dir: dir,
			})
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errOut.String())
			}
			log := srv.Log()
			if len(log) != 1 {
				t.Fatalf("%d model requests, want 1", len(log))
			}
			if got := slices.Contains(log[0].Tools, "team_create"); got != tc.want {
				t.Errorf("team_create offered = %v, want %v (tools %v)", got, tc.want, log[0].Tools)
			}
		})
	}
}

func TestTheDemoModelIsOfferedTheTeamToolsItShows(t *testing.T) {
	code, out, errOut := run(t, "run", "--demo", "--no-session-persistence", "-p", "show me a team", "--output-format", "stream-json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, `"name":"team_create"`) || !strings.Contains(out, `"type":"teammate.status"`) || strings.Contains(out, "unknown tool") {
		t.Errorf("the demo's team never ran:\n%s", out)
	}
}
