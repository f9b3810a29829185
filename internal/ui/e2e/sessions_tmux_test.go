//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestTheChatUIsSessionIsSavedWithItsPromptAgentsAndStatus(t *testing.T) {
	srv := startServer(t, scenario)
	s := startAtomic(t, srv.URL())
	s.typeLine("please fan out to three agents")
	s.waitFor("● 3 Explore agents finished (ctrl+o to expand)", "All three agents reported back.")
	s.keys("C-d")
	s.waitUntil("atomic to exit", func(string) bool { return s.exited() })
	cmd := exec.Command(binary, "sessions", "--json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_STATE_HOME=" + s.state}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("atomic sessions --json: %v", err)
	}
	var list []struct {
		ID, Title, Status string
		Agents            int
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(list) != 1 || list[0].Title != "please fan out to three agents" || list[0].Agents != 3 || list[0].Status != "completed" {
		t.Fatalf("sessions %+v; want the chat's one session, titled by its prompt, 3 agents, completed", list)
	}
	cmdExp := exec.Command(binary, "sessions", "export", list[0].ID)
	cmdExp.Env = cmd.Env
	exp, err := cmdExp.Output()
	if err != nil || !strings.Contains(string(exp), `"type":"complete"`) || !strings.Contains(string(exp), `"agent_id":"explore-`) {
		t.Fatalf("export: %v:\n%s", err, exp)
	}
}
