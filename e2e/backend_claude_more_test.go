//go:build unix

package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
)

// backendCmd is the `atomic run --backend claude-code` command runBackend
// runs, not yet started, with the throwaway CLAUDE_CONFIG_DIR it gives the
// CLI (every process the CLI starts inherits it).
func backendCmd(t testing.TB, ctx context.Context, baseURL, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	home := t.TempDir()
	conf := filepath.Join(home, ".claude")
	full := append([]string{"run", "--backend", "claude-code", "--backend-bin", bin, "--base-url", baseURL, "--model", "claude-test-model"}, args...)
	cmd := exec.CommandContext(ctx, binary, full...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"CLAUDE_CONFIG_DIR=" + conf, "TMPDIR=" + home, "ANTHROPIC_API_KEY=test-key",
		"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	return cmd, conf
}

// checkCompleteOnceAndLast fails unless the stream has exactly one
// complete event and it is the last.
func checkCompleteOnceAndLast(t *testing.T, evs []event.Raw) {
	t.Helper()
	n := 0
	for _, e := range evs {
		if e.Type == event.Complete {
			n++
		}
	}
	if n != 1 || len(evs) == 0 || evs[len(evs)-1].Type != event.Complete {
		t.Fatalf("%d complete events (last event %v), want exactly one, last", n, lastType(evs))
	}
}

func lastType(evs []event.Raw) event.Type {
	if len(evs) == 0 {
		return ""
	}
	return evs[len(evs)-1].Type
}

func TestBackendClaudeCodeBackgroundSubagentIsBackgroundUntilItsAnswerAndTheRunWaitsForIt(t *testing.T) {
	bin := claudeBin(t)
	srv := server(t, claudeBackground)
	r := runBackend(t, srv.URL(), bin, "-p", "BGRUN: start one background sub-agent.", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	checkCompleteOnceAndLast(t, evs)
	const id = "general-purpose-1"
	spawn, end, completeAt := -1, -1, -1
	var statuses []lifecycle.Status
	for i, e := range evs {
		switch {
		case e.Type == event.SubagentStart && e.AgentID == id:
			spawn = i
			if d := data[event.SubagentStartData](t, e); !d.Background {
				t.Errorf("subagent.start of %s is not marked background", id)
			}
		case e.Type == event.SubagentComplete && e.AgentID == id:
			end = i
		case e.Type == event.Complete:
			completeAt = i
		case e.Type == event.AgentStatus && e.AgentID == id:
			s := data[lifecycle.StatusData](t, e).Status
			statuses = append(statuses, s)
			if end < 0 && s != lifecycle.Background {
				t.Errorf("event %d: %s is %s before its subagent.complete, want background", i, id, s)
			}
		}
	}
	if spawn < 0 || end < 0 {
		t.Fatalf("%s: subagent.start at %d, subagent.complete at %d; want both", id, spawn, end)
	}
	t.Logf("%s statuses: %v; subagent.start %d, subagent.complete %d, complete %d of %d events", id, statuses, spawn, end, completeAt, len(evs))
	if len(statuses) == 0 || statuses[0] != lifecycle.Background {
		t.Errorf("%s statuses %v, want background first", id, statuses)
	}
	if statuses[len(statuses)-1] != lifecycle.Completed {
		t.Errorf("%s statuses %v, want completed last", id, statuses)
	}
	if completeAt < end {
		t.Errorf("complete (event %d) came before the background agent's subagent.complete (event %d)", completeAt, end)
	}
	if d := data[event.SubagentCompleteData](t, evs[end]); !d.Success || d.Result != "done DELTA" {
		t.Errorf("subagent.complete = %+v, want success with its answer", d)
	}
	// The run took at least the agent's 2 s answer: it waited for it.
	if r.elapsed < 2*time.Second {
		t.Errorf("the run took %s, less than the background agent's 2 s answer", r.elapsed)
	}
}

// claudeSlowFanOut is claudeFanOut with answers that take 30 s.
var claudeSlowFanOut = strings.ReplaceAll(claudeFanOut, "delay_ms: 2000", "delay_ms: 30000")

func TestBackendClaudeCodeSIGINTDuringThreeSubagentsInterruptsEveryAgentAndLeavesNoCLIProcess(t *testing.T) {
	bin := claudeBin(t)
	srv := server(t, claudeSlowFanOut)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd, conf := backendCmd(t, ctx, srv.URL(), bin, "-p", "FANOUT: start three sub-agents in parallel.", "--output-format", "stream-json")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outc := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(stdout)
		outc <- string(b)
	}()
	// The three sub-agents are at work once their model requests are in
	// flight.
	deadline := time.Now().Add(60 * time.Second)
	for inFlightSubagents(srv.Log()) < 3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the three sub-agents never asked the model; stderr %q", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cli := claudeProcesses(conf)
	if len(cli) == 0 {
		t.Fatal("no process of the CLI found while it runs (the scan is broken)")
	}
	t.Logf("processes of the CLI before SIGINT: %v", cli)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	out := <-outc
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("atomic took %s to end after SIGINT", d)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("atomic ended with %v, want exit status 130; stderr %q", err, errb.String())
	}
	if n := strings.Count(errb.String(), "interrupted"); n != 1 || !strings.Contains(errb.String(), "atomic: interrupted (SIGINT)") {
		t.Errorf("stderr %q: want one line saying atomic: interrupted (SIGINT)", errb.String())
	}
	evs := events(t, out)
	checkCompleteOnceAndLast(t, evs)
	var st lifecycle.State
	last := map[string]lifecycle.Status{}
	for _, e := range evs {
		st.Apply(e.Event())
		if e.Type == event.AgentStatus {
			last[e.AgentID] = data[lifecycle.StatusData](t, e).Status
		}
	}
	for _, id := range []string{"general-purpose-1", "general-purpose-2", "general-purpose-3"} {
		if last[id] != lifecycle.Interrupted {
			t.Errorf("%s last agent.status = %q, want interrupted", id, last[id])
		}
		if r, ok := st.Get(id); !ok || r.Status != lifecycle.Interrupted {
			t.Errorf("%s record = %+v, want interrupted", id, r)
		}
	}
	if c := st.Counts(); c.Total() != 3 {
		t.Errorf("agents %+v, want three", c)
	}
	// No process of the CLI outlives atomic.
	deadline = time.Now().Add(3 * time.Second)
	for {
		left := claudeProcesses(conf)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the CLI left after atomic exited: %v (were %v)", left, cli)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// inFlightSubagents counts sub-agent model requests not yet answered.
func inFlightSubagents(log []loopback.LogEntry) int {
	n := 0
	for _, e := range log {
		if strings.HasPrefix(e.Rule, "sub-") && !e.Done() {
			n++
		}
	}
	return n
}

// claudeProcesses lists the live processes (zombies count as dead) that
// carry CLAUDE_CONFIG_DIR=conf in their environment, other than atomic
// itself: the CLI and whatever it started.
func claudeProcesses(conf string) []int {
	want := []byte("CLAUDE_CONFIG_DIR=" + conf + "\x00")
	dir, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range dir {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		if exe, _ := os.Readlink("/proc/" + d.Name() + "/exe"); exe == binary {
			continue
		}
		if alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestBackendClaudeCodeSubagentBashIsDeniedHeadlessNamingTheFlagAndDoesNotRun(t *testing.T) {
	bin := claudeBin(t)
	srv := server(t, claudePerm)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd, _ := backendCmd(t, ctx, srv.URL(), bin, "-p", "PERMRUN: start a sub-agent that writes a file.", "--output-format", "stream-json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("atomic: %v; stderr %q", err, errb.String())
	}
	evs := events(t, out.String())
	checkCompleteOnceAndLast(t, evs)
	var requested, resolved []event.Raw
	bashFailed := false
	for _, e := range evs {
		switch e.Type {
		case event.PermissionRequested:
			requested = append(requested, e)
		case event.PermissionResolved:
			resolved = append(resolved, e)
		case event.ToolComplete:
			if d := data[event.ToolCompleteData](t, e); e.AgentID == "general-purpose-1" && d.Name == "bash" {
				bashFailed = !d.Success
			}
		}
	}
	if len(requested) != 1 || len(resolved) != 1 {
		t.Fatalf("%d permission.requested, %d permission.resolved, want one each", len(requested), len(resolved))
	}
	if req := data[event.PermissionRequestedData](t, requested[0]); requested[0].AgentID != "general-purpose-1" || req.Tool != "bash" {
		t.Errorf("requested by %s: %+v, want general-purpose-1 asking for bash", requested[0].AgentID, req)
	}
	d := data[event.PermissionResolvedData](t, resolved[0])
	if d.Allowed || !strings.Contains(d.Reason, "--allowed-tools") {
		t.Errorf("permission.resolved = %+v, want denied naming --allowed-tools", d)
	}
	if !bashFailed {
		t.Error("the sub-agent's bash tool.complete is missing or successful, want a failure")
	}
	// The sub-agent's model was told why, flag included.
	told := false
	for _, e := range srv.Log() {
		if e.Rule != "sub-final" {
			continue
		}
		for _, r := range e.LastToolResults() {
			told = told || strings.Contains(r.Content, "--allowed-tools")
		}
	}
	if !told {
		t.Error("no tool result naming --allowed-tools reached the sub-agent's model")
	}
	if _, err := os.Stat(filepath.Join(cmd.Dir, "perm.txt")); !os.IsNotExist(err) {
		t.Errorf("perm.txt exists (stat: %v): the denied command ran", err)
	}
}
