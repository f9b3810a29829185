//go:build !windows

package permission

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/sandbox"
)

// oracle runs a bash line for real and reports the programs it ran: an
// account of "what bash would run" independent of the gate's parser.
//
// The line runs under /bin/bash -c in a throwaway directory, confined by
// Atomic's kernel sandbox (writes only there, no network), with a short
// timeout. PATH holds only shims: one per program name on the system,
// which logs its words instead of running; bash and sh, links to the real
// bash; and the wrappers the gate looks through (timeout, env,
// xargs …), which run for real and start what they wrap through PATH. A
// name found nowhere makes bash call command_not_found_handle, which
// BASH_ENV defines in every bash of the run to log it too (sh is bash in
// POSIX mode, which skips BASH_ENV: a name found nowhere runs nothing
// there either). Each bash waits for what it started in the background
// before it exits, so that gets logged too. Programs run by absolute path do run (inside the sandbox); the
// check of the directory afterwards (writes) catches those that wrote.
type oracle struct {
	root, dir, bin, env string
	runs                int // each run logs to a file of its own: one left running cannot write into the next
	sb                  *sandbox.Sandbox
}

func newOracle(t testing.TB) *oracle {
	t.Helper()
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash to run lines with")
	}
	root := t.TempDir()
	o := &oracle{root: root, dir: filepath.Join(root, "work"), bin: filepath.Join(root, "bin"), env: filepath.Join(root, "trace.bash")}
	for _, d := range []string{o.dir, o.bin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Every program name on the system logs itself instead of running; a
	// name that is not there at all is logged by command_not_found_handle.
	logger := filepath.Join(root, "logger")
	if err := os.WriteFile(logger, []byte("#!/bin/bash\nprintf '%s\\0' $(($# + 1)) \"${0##*/}\" \"$@\" >> \"$ORACLE_LOG\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			os.Symlink(logger, filepath.Join(o.bin, e.Name()))
		}
	}
	// The shells re-run the real bash, and the wrappers the gate looks
	// through (timeout 5 ls) run for real, starting what they wrap by
	// its name, so that it is logged too.
	shim := func(name, script string) {
		p := filepath.Join(o.bin, name)
		os.Remove(p)
		if err := os.WriteFile(p, []byte("#!/bin/bash\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, sh := range []string{"bash", "sh"} {
		p := filepath.Join(o.bin, sh)
		os.Remove(p)
		if err := os.Symlink("/bin/bash", p); err != nil {
			t.Fatal(err)
		}
	}
	shim("busybox", `exec "$@"`)
	for _, w := range []string{"timeout", "nice", "nohup", "stdbuf", "ionice", "setsid", "env", "xargs"} {
		if real, err := exec.LookPath(w); err == nil {
			shim(w, "exec "+real+` "$@"`)
		}
	}
	trace := `command_not_found_handle() { printf '%s\0' $# "$@" >> "$ORACLE_LOG"; return 127; }
readonly -f command_not_found_handle
trap wait EXIT
`
	if err := os.WriteFile(o.env, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.WorkspaceWrite, Writable: []string{o.dir, root}})
	var unsupported *sandbox.UnsupportedError
	if errors.As(err, &unsupported) {
		t.Skipf("the oracle runs lines only inside the kernel sandbox: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	o.sb = sb
	t.Cleanup(func() { sb.Close() })
	return o
}

// run runs line and returns the commands it ran (their words) and the
// files it left in its directory.
func (o *oracle) run(t testing.TB, line string) (ran [][]string, wrote []string) {
	t.Helper()
	os.RemoveAll(o.dir)
	os.Mkdir(o.dir, 0o755)
	for _, name := range plantedFiles {
		os.WriteFile(filepath.Join(o.dir, name), nil, 0o644)
	}
	o.runs++
	log := filepath.Join(o.root, fmt.Sprintf("log%d", o.runs))
	defer os.Remove(log)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", line)
	cmd.Dir = o.dir
	cmd.Env = []string{"PATH=" + o.bin, "BASH_ENV=" + o.env, "ORACLE_LOG=" + log, "HOME=" + o.dir, "LANG=C"}
	cmd.Stdin = strings.NewReader("rm f\n")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	if err := o.sb.Start(cmd); err != nil {
		t.Fatalf("starting bash: %v", err)
	}
	_ = cmd.Wait()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left in the background
	data, _ := os.ReadFile(log)
	// Each record is its word count, then its words, each ended by a NUL
	// (which no word of a command can hold), written by one printf to a
	// file opened for appending, so records of commands running at once
	// do not interleave.
	fields := strings.Split(string(data), "\x00")
	for i := 0; i+1 < len(fields); {
		n, err := strconv.Atoi(fields[i])
		if err != nil || n < 0 || i+1+n > len(fields) {
			t.Fatalf("the oracle's log is malformed at field %d: %q", i, data)
		}
		ran = append(ran, fields[i+1:i+1+n])
		i += 1 + n
	}
	entries, _ := os.ReadDir(o.dir)
	left := map[string]bool{}
	for _, e := range entries {
		left[e.Name()] = true
		if !slices.Contains(plantedFiles, e.Name()) {
			wrote = append(wrote, e.Name())
		}
	}
	for _, name := range plantedFiles {
		if !left[name] {
			wrote = append(wrote, "removed "+name)
		}
	}
	return ran, wrote
}

// plantedFiles are in the directory every line runs in: names a glob
// turns into options or code (test * is test -v 'a[$(touch pwned)]').
var plantedFiles = []string{"-v", "a[$(touch pwned)]", "-delete", "--to-command=touch pwned", "-e", "-i", "f"}
