//go:build unix

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testBash is the bash tool with a short kill grace so tests stay fast.
func testBash(ws Workspace) *bashTool {
	return &bashTool{ws: ws, grace: 300 * time.Millisecond, maxOutput: bashMaxOutput}
}

func TestBashRunsCommandsInTheWorkspaceRoot(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"marker.txt": "here"})
	bash := testBash(ws)
	tests := []struct {
		name, command, want string
		isError             bool
	}{
		{"working directory", "pwd && cat marker.txt", ws.Root + "\nhere", false},
		{"stderr is captured", "echo out; echo err >&2", "out\nerr", false},
		{"no stdin", "cat; echo done", "done", false},
		{"no output", "true", "(no output)", false},
		{"exit status", "echo oops; exit 3", "oops\n\nexit status 3", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, bash, map[string]any{"command": tt.command, "description": tt.name})
			if res.IsError != tt.isError || res.Content != tt.want {
				t.Fatalf("result = %+v, want content %q, error %v", res, tt.want, tt.isError)
			}
		})
	}
}

func TestBashTimeoutStopsTheCommand(t *testing.T) {
	bash := testBash(newWorkspace(t, nil))
	start := time.Now()
	res := call(t, bash, map[string]any{"command": "echo started; sleep 30", "timeout_ms": 300})
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("timeout took %v", took)
	}
	if !res.IsError {
		t.Fatalf("want an error result: %+v", res)
	}
	assertContains(t, res.Content, "timed out after 300ms", "stopped", "started")
	assertContains(t, mustFail(t, bash, map[string]any{"command": "true", "timeout_ms": 600001}), "`timeout_ms` must be at most 600000")
}

func TestBashCapsOutputKeepingHeadAndTail(t *testing.T) {
	bash := testBash(newWorkspace(t, nil))
	got := mustSucceed(t, bash, map[string]any{"command": "echo START; yes abcdefghi | head -c 200000; echo; echo END"})
	if len(got) > bashMaxOutput+100 {
		t.Fatalf("output is %d bytes, want about %d", len(got), bashMaxOutput)
	}
	assertContains(t, got, "START", "END", "bytes cut")
	if !strings.HasPrefix(got, "START\n") || !strings.HasSuffix(got, "\nEND") {
		t.Fatalf("head or tail lost: %q … %q", got[:20], got[len(got)-20:])
	}
}

func TestBashCancellationKillsTheWholeProcessGroup(t *testing.T) {
	ws := newWorkspace(t, nil)
	bash := testBash(ws)
	// $$ is bash's pid, which is the group id; a background child and a
	// background grandchild (started by a subshell) record their pids too.
	command := `echo $$ > pids; sleep 100 & echo $! >> pids; (sleep 101 & echo $! >> pids; wait) & sleep 102`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Result, 1)
	go func() {
		res, err := bash.Run(ctx, Call{Input: input(t, map[string]any{"command": command})})
		if err != nil {
			res = Result{Content: err.Error(), IsError: true}
		}
		done <- res
	}()
	pids := waitForPids(t, filepath.Join(ws.Root, "pids"), 3)
	for _, pid := range pids {
		if !running(pid) {
			t.Fatalf("process %d is not running before the cancel", pid)
		}
	}
	cancel()
	select {
	case res := <-done:
		if !res.IsError || !strings.Contains(res.Content, "interrupted") {
			t.Fatalf("result = %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	assertGroupGone(t, pids[0], pids)
}

func TestBashStopsBackgroundProcessesWhenTheCommandReturns(t *testing.T) {
	ws := newWorkspace(t, nil)
	start := time.Now()
	got := mustSucceed(t, testBash(ws), map[string]any{"command": "echo $$ > pids; sleep 100 & echo $! >> pids; echo launched"})
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a background child held the call for %v", took)
	}
	assertContains(t, got, "launched")
	pids := waitForPids(t, filepath.Join(ws.Root, "pids"), 2)
	assertGroupGone(t, pids[0], pids)
}

func TestBashKillsProcessesThatIgnoreSIGTERM(t *testing.T) {
	ws := newWorkspace(t, nil)
	res := call(t, testBash(ws), map[string]any{"command": "trap '' TERM; echo $$ > pids; sleep 100 & echo $! >> pids; sleep 101", "timeout_ms": 500})
	assertContains(t, res.Content, "timed out")
	pids := waitForPids(t, filepath.Join(ws.Root, "pids"), 2)
	assertGroupGone(t, pids[0], pids)
}

func TestBashRefusesToStartWhenAlreadyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := testBash(newWorkspace(t, nil)).Run(ctx, Call{Input: input(t, map[string]any{"command": "touch ran"})})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

func TestBashSubjectIsTheCommand(t *testing.T) {
	s := NewBash(Workspace{Root: t.TempDir()}).(Subjecter)
	if got := s.Subject(input(t, map[string]any{"command": "go test ./..."})); got != "go test ./..." {
		t.Fatalf("Subject = %q", got)
	}
}

func TestHeadTailKeepsBothEndsOfLongOutput(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		chunks []string
		want   string
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef"},
		{"exactly full", 10, []string{"0123456789"}, "0123456789"},
		{"byte by byte", 10, strings.Split("0123456789AB", ""), "01234\n… 2 bytes cut …\n789AB"},
		{"one big write", 10, []string{"0123456789ABCDEF"}, "01234\n… 6 bytes cut …\nBCDEF"},
		{"tail wraps", 6, []string{"abc", "defgh", "ijk", "lm"}, "abc\n… 7 bytes cut …\nklm"},
		{"cut inside runes", 6, []string{"ééééé"}, "é\n… 6 bytes cut …\né"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHeadTail(tt.max)
			for _, c := range tt.chunks {
				if n, err := h.Write([]byte(c)); n != len(c) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := h.String(); got != tt.want {
				t.Fatalf("String = %q, want %q", got, tt.want)
			}
		})
	}
}

// waitForPids waits until file lists n pids, one a line.
func waitForPids(t *testing.T, file string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(file)
		fields := strings.Fields(string(data))
		if len(fields) >= n && strings.HasSuffix(string(data), "\n") {
			pids := make([]int, len(fields))
			for i, f := range fields {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("bad pid %q in %s", f, file)
				}
				pids[i] = pid
			}
			return pids
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not get %d pids", file, n)
	return nil
}

// running reports whether pid is a live process: it exists and is not a
// zombie (an exited process its parent, maybe a non-reaping init, has not
// collected).
func running(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// assertGroupGone checks that no process of group pgid, and none of pids,
// is still running.
func assertGroupGone(t *testing.T, pgid int, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if running(pid) {
			t.Errorf("process %d survived", pid)
		}
	}
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !running(pid) {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) {
			t.Errorf("process %d of group %d survived", pid, pgid)
		}
	}
}
