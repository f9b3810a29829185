package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/store"
)

// runIn runs atomic in directory dir with state under state.
func runIn(t *testing.T, dir, state string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": state}
	code := Run(context.Background(), args, IOStreams{
		In: strings.NewReader(""), Out: &out, Err: &errOut,
		Getenv: func(k string) string { return env[k] }, Dir: dir,
	})
	return code, out.String(), errOut.String()
}

func TestRunContinueAppendsToTheLastSessionOfTheDirectoryWithTheLeadsHistory(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	if code, _, errOut := runIn(t, dir, state, "run", "--demo", "-p", "hi"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	code, out, errOut := runIn(t, dir, state, "run", "--demo", "--continue", "-p", "and again", "--output-format", "stream-json")
	if code != 0 || errOut != "" {
		t.Fatalf("--continue: exit %d, stderr %q", code, errOut)
	}
	st, err := store.Open(context.Background(), filepath.Join(state, "atomic", store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, _ := st.Sessions(context.Background())
	if len(list) != 1 || list[0].Status != store.StatusCompleted || list[0].Title != "hi" {
		t.Fatalf("sessions %+v; want the one session, completed again, titled by its first prompt", list)
	}
	id := list[0].ID
	if !strings.Contains(out, `"session_id":"`+id+`"`) {
		t.Fatalf("the continued run does not report session %s:\n%s", id, out)
	}
	if p, _ := st.Prompts(context.Background(), id); strings.Join(p, "|") != "hi|and again" {
		t.Fatalf("prompts %q", p)
	}
	h, _, err := st.LoadHistory(context.Background(), id, event.LeadID)
	if err != nil || len(h) < 4 || h[0].Parts[0].Text != "hi" {
		t.Fatalf("lead history %+v, %v; want the first exchange followed by the second", h, err)
	}
	found := false
	for _, m := range h[2:] {
		for _, p := range m.Parts {
			found = found || p.Text == "and again"
		}
	}
	if !found {
		t.Fatalf("the follow-up prompt is not in the lead's history %+v", h)
	}
	completes := 0
	if err := st.Events(context.Background(), id, func(l []byte) error {
		if bytes.Contains(l, []byte(`"type":"complete"`)) {
			completes++
		}
		return nil
	}); err != nil || completes != 2 {
		t.Fatalf("%d completes stored (%v); want one per run in the one session", completes, err)
	}
}

func TestResumeFlagsNameWhatIsWrong(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	for _, m := range []store.Meta{
		{ID: "codex-session", Dir: dir, Backend: "codex", Model: "gpt"},
		{ID: "claude-unnamed", Dir: dir, Backend: "claude-code"},
		{ID: "native-session", Dir: dir, Backend: "native", Model: "m"},
	} {
		rec := store.Record(filepath.Join(state, "atomic", store.FileName), store.Options{}, m, nil)
		rec.Prompt("hello")
		rec.Emit(event.Event{Type: event.MessageDelta, AgentID: "lead"})
		rec.Close()
	}
	for _, tc := range []struct {
		name string
		dir  string
		args []string
		want string
	}{
		{"nothing in this directory", t.TempDir(), []string{"--demo", "--continue"}, "no session in "},
		{"unknown id", dir, []string{"--demo", "--resume", "nope"}, `no such session "nope"`},
		{"both flags", dir, []string{"--demo", "--continue", "--resume", "codex-session"}, "give one of them"},
		{"a CLI lead's session on the native lead", dir, []string{"--demo", "--resume", "codex-session"},
			"session codex-session ran its lead in codex: resume it with --backend codex"},
		{"a native session in a CLI", dir, []string{"--backend", "claude-code", "--resume", "native-session"},
			"--backend claude-code: session native-session ran the native lead; resume it without --backend"},
		{"a session of another folder", t.TempDir(), []string{"--demo", "--resume", "native-session"},
			"session native-session ran in " + dir + ", not in this folder ("},
		{"a Claude Code lead that never named its conversation", dir, []string{"--backend", "claude-code", "--resume", "claude-unnamed"},
			"never named its conversation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "-p", "more"}, tc.args...)
			code, _, errOut := runIn(t, tc.dir, state, args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errOut, tc.want)
			}
		})
	}
}

func TestClaudeAndCodexSpellingsAreRewrittenForTheFlagPackage(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--resume"}, []string{"--resume="}},
		{[]string{"--resume", "--demo"}, []string{"--resume=", "--demo"}},
		{[]string{"-resume"}, []string{"--resume="}},
		{[]string{"-r"}, []string{"--resume="}},
		{[]string{"-r", "atomic-1"}, []string{"-r", "atomic-1"}},
		{[]string{"--resume", "atomic-1"}, []string{"--resume", "atomic-1"}},
		{[]string{"--resume=atomic-1"}, []string{"--resume=atomic-1"}},
		{[]string{"--", "--resume"}, []string{"--", "--resume"}},
		{[]string{"-c"}, []string{"--continue"}},
		{[]string{"-c", "--demo"}, []string{"--continue", "--demo"}},
		{[]string{"-c", "model=gpt-5"}, []string{"--set", "model=gpt-5"}},
		{[]string{"-c", "context_windows.m=100"}, []string{"--set", "context_windows.m=100"}},
		{[]string{"-c", "make x=1 work"}, []string{"--continue", "make x=1 work"}},
		{[]string{"-p", "hi"}, []string{"-p", "hi"}},
		{[]string{"-p", "--verbose", "hi"}, []string{"--print", "--verbose", "hi"}},
		{[]string{"--print", "hi"}, []string{"--print", "hi"}},
		{[]string{"hi", "-p"}, []string{"hi", "--print"}},
	} {
		if got := habitArgs(tc.in); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("habitArgs(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestRunResumeWithoutAnIDSaysToGiveOne(t *testing.T) {
	code, _, errOut := runIn(t, t.TempDir(), t.TempDir(), "run", "--demo", "-p", "x", "--resume=")
	if code != 2 || !strings.Contains(errOut, "--resume: give the session's id") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
