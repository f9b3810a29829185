//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// addDirScenario: "write before" and "write after" have the lead write a
// file into the folder extra with the write tool and, after, with a
// command (so the sandbox's rules are the ones that let it).
const addDirScenario = `
rules:
  - {name: before-refused, match: {last_user_contains: "write before", tool_result_contains: "outside the workspace"}, respond: {text: "Refused: outside the workspace."}}
  - {name: before-done, match: {last_user_contains: "write before", has_tool_results: true}, respond: {text: "Written before."}}
  - name: before
    match: {last_user_contains: "write before"}
    respond:
      tool_calls:
        - {name: write, input: {file_path: "%[1]s/before.txt", content: "before\n"}}
        - {name: bash, input: {command: "echo cmd > %[1]s/cmd-before.txt"}}
  - {name: after-done, match: {last_user_contains: "write after", has_tool_results: true}, respond: {text: "Both writes done."}}
  - name: after
    match: {last_user_contains: "write after"}
    respond:
      tool_calls:
        - {name: write, input: {file_path: "%[1]s/after.txt", content: "after\n"}}
        - {name: bash, input: {command: "echo cmd > %[1]s/cmd.txt"}}
`

// The issue's /add-dir switching in place: a folder added in the running
// chat takes writes from the file tools and from sandboxed commands at
// once, and /config lists it, without a restart.
func TestAddDirLetsTheNextWriteAndCommandReachTheFolderWithoutARestart(t *testing.T) {
	tmp := t.TempDir()
	extra := filepath.Join(tmp, "extra")
	if err := os.MkdirAll(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, "models: [test-model]\n"+fmt.Sprintf(addDirScenario, extra))
	s := launchIn(t, tmp, []string{"ANTHROPIC_API_KEY=test-key"}, "--provider", "anthropic", "--base-url", shellQuote(srv.URL()),
		"--model", "test-model", "--dangerously-skip-permissions")
	s.waitFor("Ask anything")
	s.typeLine("write before")
	s.waitFor("Refused: outside the workspace.")
	s.typeLine("/add-dir " + extra)
	s.waitFor("Added " + extra + " to the workspace")
	s.typeLine("write after")
	s.waitFor("Both writes done.")
	for name, want := range map[string]string{"before.txt": "<none>", "cmd-before.txt": "<none>", "after.txt": "after\n", "cmd.txt": "cmd\n"} {
		if got := fileText(t, filepath.Join(extra, name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	s.typeLine("/clear")
	s.typeLine("/config")
	s.waitFor("sandbox                workspace-write · default", "added folders          "+extra, "/add-dir (this session)")
}
