//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// claudeApprovalScenario has the lead start one sub-agent that, after a
// moment, asks to run a Bash command writing approved.txt.
const claudeApprovalScenario = `
rules:
  - name: sub-final
    match: {last_user_contains: "SUBTASK-WRITE", has_tool_results: true}
    respond: {text: "done WRITE"}
  - name: sub-bash
    match: {last_user_contains: "SUBTASK-WRITE"}
    respond:
      delay_ms: 1500
      tool_calls:
        - {name: Bash, input: {command: "echo approved > approved.txt", description: "Write approved.txt"}}
  - name: lead-final
    match: {last_user_contains: "WRITERUN", has_tool_results: true}
    respond: {text: "The sub-agent wrote the file."}
  - name: lead-spawn
    match: {last_user_contains: "WRITERUN", tools_include: [Agent]}
    respond:
      tool_calls:
        - {name: Agent, input: {description: "Write a file", prompt: "SUBTASK-WRITE: run echo approved > approved.txt with Bash.", subagent_type: general-purpose, run_in_background: false}}
  - name: other
    respond: {text: "OK."}
`

func TestClaudeCodeSubagentsBashApprovalIsAnsweredInAtomicsPromptQueue(t *testing.T) {
	srv := startServer(t, claudeApprovalScenario)
	s := startClaudeTUI(t, srv.URL(), testMark(t))
	work, err := os.Readlink("/proc/" + strconv.Itoa(s.pid) + "/cwd")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(work, "approved.txt")
	s.typeLine("WRITERUN: start a sub-agent that writes a file.")
	s.waitFor("● Running 1 general-purpose agent…", "Write a file")
	s.waitFor("● Approval needed · general-purpose-1 (claude-code) wants to run:", "echo approved > approved.txt", "Allow once (y)")
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("approved.txt exists before the answer (stat: %v)", err)
	}
	s.keys("y")
	s.waitFor("● 1 general-purpose agent finished", "The sub-agent wrote the file.")
	scr := s.capture()
	if strings.Contains(scr, "Approval needed") {
		t.Errorf("the prompt stayed up after the answer:\n%s", scr)
	}
	if !strings.Contains(scr, "╰ Done") {
		t.Errorf("the agent's row does not say Done:\n%s", scr)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(file)
		if err == nil && strings.TrimSpace(string(b)) == "approved" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("approved.txt = %q (%v), want the approved command's output", b, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
