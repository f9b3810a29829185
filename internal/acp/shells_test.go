package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/event"
)

// shellWire is a shell tool call update as the client reads it.
type shellWire struct {
	SessionUpdate string         `json:"sessionUpdate"`
	ToolCallID    string         `json:"toolCallId"`
	Kind          string         `json:"kind"`
	Status        string         `json:"status"`
	Title         string         `json:"title"`
	RawOutput     map[string]any `json:"rawOutput"`
	Meta          struct {
		Atomic map[string]string `json:"atomic"`
	} `json:"_meta"`
	Content []struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"content"`
}

// shellCalls are the updates of calls whose id names a shell.
func shellCalls(t *testing.T, sent []string) []shellWire {
	t.Helper()
	var out []shellWire
	for _, s := range sent {
		var u shellWire
		if err := json.Unmarshal([]byte(s), &u); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(u.ToolCallID, "/shell-") {
			out = append(out, u)
		}
	}
	return out
}

// shellRun: the lead's bash call starts shell-1, which writes and exits 0;
// a background sub-agent's bash starts shell-2, which exits 2; the lead's
// shell-3 is stopped by kill_shell.
func shellRun() []event.Event {
	bash, _ := json.Marshal(map[string]any{"command": "make test", "run_in_background": true})
	sh := func(typ event.Type, sec float64, id, parent, call string, d any) event.Event {
		return ev(typ, sec, id, parent, call, d)
	}
	return join(
		ev(event.SessionStart, 0, event.LeadID, "", "", event.SessionStartData{Model: "m"}),
		ev(event.ToolStart, 1, event.LeadID, "", "lead-b1", event.ToolStartData{Name: "bash", Input: bash}),
		sh(event.ShellStart, 1, "shell-1", event.LeadID, "lead-b1", event.ShellStartData{Command: "make test"}),
		ev(event.ToolComplete, 1, event.LeadID, "", "lead-b1", event.ToolCompleteData{Name: "bash", Success: true, Result: "Started shell-1"}),
		sh(event.ShellOutput, 2, "shell-1", event.LeadID, "", event.ShellOutputData{Line: "ok  pkg/a"}),
		task(2, "explore-1", "c1", "build", true, false), taskReturn(2, "c1", "spawned explore-1"),
		sh(event.ShellStart, 3, "shell-2", "explore-1", "t7", event.ShellStartData{Command: "go vet"}),
		sh(event.ShellEnd, 4, "shell-1", event.LeadID, "", event.ShellEndData{ExitCode: 0, Tail: "ok  pkg/a\nPASS\n"}),
		sh(event.ShellEnd, 5, "shell-2", "explore-1", "", event.ShellEndData{ExitCode: 2, Tail: "vet: bad\n"}),
		sh(event.ShellStart, 6, "shell-3", event.LeadID, "lead-b2", event.ShellStartData{Command: "sleep 99"}),
		sh(event.ShellEnd, 7, "shell-3", event.LeadID, "", event.ShellEndData{ExitCode: -1, Interrupted: true, Reason: "killed by kill_shell"}),
	)
}

func TestABackgroundShellIsAnExecuteToolCallOfItsOwnUnderItsStartersCallUpdatedWithItsLastLineAndEndedWithItsExitStatus(t *testing.T) {
	sent := sentFor(t, nil, shellRun())
	var got []string
	for _, u := range shellCalls(t, sent) {
		text := ""
		for _, c := range u.Content {
			text += c.Content.Text
		}
		got = append(got, strings.Join(strings.Fields(strings.Join([]string{u.SessionUpdate, u.ToolCallID, u.Kind, u.Status, u.Meta.Atomic["parentToolCallId"], text}, " ")), " "))
	}
	want := []string{
		"tool_call lead-b1/shell-1 execute in_progress lead-b1 Running in background…",
		"tool_call_update lead-b1/shell-1 ok pkg/a",
		"tool_call t7/shell-2 execute in_progress c1 Running in background…",
		"tool_call_update lead-b1/shell-1 completed exit 0 · PASS",
		"tool_call_update t7/shell-2 failed exit 2 · vet: bad",
		"tool_call lead-b2/shell-3 execute in_progress lead-b2 Running in background…",
		"tool_call_update lead-b2/shell-3 failed Interrupted",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shell tool call updates (-want +got):\n%s", diff)
	}
	calls := shellCalls(t, sent)
	if calls[0].Title != "$ make test" || calls[0].Meta.Atomic["agentId"] != event.LeadID || calls[2].Meta.Atomic["agentId"] != "explore-1" {
		t.Errorf("starts: %+v / %+v", calls[0], calls[2])
	}
	if out := calls[4].RawOutput; out["exit_code"] != float64(2) || out["status"] != "error" || out["error"] != "exit status 2" {
		t.Errorf("shell-2's end says %v", out)
	}
	// The lead's bash call ends on its own, apart from the shell it started.
	found := false
	for _, s := range sent {
		found = found || strings.Contains(s, `"sessionUpdate":"tool_call_update"`) && strings.Contains(s, `"toolCallId":"lead-b1"`) && strings.Contains(s, `"status":"completed"`)
	}
	if !found {
		t.Error("the lead's bash call that started shell-1 was never completed")
	}
}

func TestAReplayedSessionShowsItsShellsEnded(t *testing.T) {
	got := shellCalls(t, sentFor(t, shellRun(), nil))
	ends := map[string]string{}
	for _, u := range got {
		if u.Status != "" {
			ends[u.ToolCallID] = u.Status
		}
	}
	want := map[string]string{"lead-b1/shell-1": "completed", "t7/shell-2": "failed", "lead-b2/shell-3": "failed"}
	if diff := cmp.Diff(want, ends); diff != "" {
		t.Errorf("replayed shells' last status (-want +got):\n%s", diff)
	}
}
