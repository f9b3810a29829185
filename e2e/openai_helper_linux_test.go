//go:build linux

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/procstat"
)

// An OpenAI run answers through atomic-openai, and the helper ends with
// the run.
func TestAnOpenAIRunAnswersThroughItsHelperWhichEndsWithIt(t *testing.T) {
	srv := server(t, "rules: [{respond: {text: from-the-helper}}]")
	r := atomic(t, srv, "openai", t.TempDir(), "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "from-the-helper") {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	helper := filepath.Join(filepath.Dir(binary), "atomic-openai")
	deadline := time.Now().Add(2 * time.Second)
	for {
		pids := running(helper)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("atomic-openai still runs after atomic ended: pids %v", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running lists the processes whose program is path.
func running(path string) []string {
	var pids []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if exe, err := os.Readlink(filepath.Join("/proc", d.Name(), "exe")); err == nil && exe == path {
			pids = append(pids, d.Name())
		}
	}
	return pids
}

// A SIGKILL of atomic mid-request ends atomic-openai too: its input
// closes with atomic, and it ends with its input (no watchdog needed).
func TestAtomicKilledMidRequestTakesItsHelperWithIt(t *testing.T) {
	srv := server(t, "rules: [{respond: {text: late, delay_ms: 20000}}]")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := command(t, ctx, srv, "openai", t.TempDir(), "-p", "hi")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(filepath.Dir(binary), "atomic-openai")
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Log()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no request reached the model")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var mine []string // this atomic's helpers
	for _, pid := range running(helper) {
		if n, _ := strconv.Atoi(pid); procstat.Parent(n) == cmd.Process.Pid {
			mine = append(mine, pid)
		}
	}
	if len(mine) != 1 {
		t.Fatalf("atomic runs %d atomic-openai while its request waits, want 1", len(mine))
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline = time.Now().Add(3 * time.Second)
	for slices.Contains(running(helper), mine[0]) {
		if time.Now().After(deadline) {
			t.Fatalf("atomic-openai (pid %s) still runs 3 s after atomic was killed", mine[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
