package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The hidden profiling variables: a run writes a CPU profile, a heap
// profile and the heap profile of its peak, each a gzipped pprof file.
func TestProfilingVariablesWriteTheProfilesOfTheRun(t *testing.T) {
	srv := server(t, `rules: [{respond: {text: "profiled"}}]`)
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", t.TempDir(), "-p", "hi")
	cmd.Env = append(cmd.Env, "ATOMIC_CPUPROFILE="+cpu, "ATOMIC_MEMPROFILE="+mem)
	r := runCmd(t, cmd)
	if r.code != 0 || !bytes.Contains([]byte(r.stdout), []byte("profiled")) {
		t.Fatalf("run: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, f := range []string{cpu, mem, mem + ".peak"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("no profile: %v", err)
		}
		if len(b) < 100 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s is not a gzipped pprof profile (%d bytes)", filepath.Base(f), len(b))
		}
	}
}
