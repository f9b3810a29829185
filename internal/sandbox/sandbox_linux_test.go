package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixture is a session's file system: a workspace, a home with a dotfile
// and a secret key, a folder outside both, and a loopback TCP listener.
type fixture struct {
	ws, home, outside, addr string
	// abstract names a listening abstract Unix socket.
	abstract string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	base := t.TempDir()
	f := fixture{ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{f.ws, f.outside, filepath.Join(f.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, c := range map[string]string{
		filepath.Join(f.home, ".bashrc"):     "# rc\n",
		filepath.Join(f.home, ".ssh/id_x"):   "PRIVATE KEY\n",
		filepath.Join(f.home, "notes.txt"):   "public notes\n",
		filepath.Join(f.outside, "file.txt"): "outside\n",
	} {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, ln)
	f.addr = ln.Addr().String()
	f.abstract = fmt.Sprintf("atomic-sandbox-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	un, err := net.Listen("unix", "@"+f.abstract)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, un)
	return f
}

// serve accepts and closes connections on ln until the test ends.
func serve(t *testing.T, ln net.Listener) {
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
}

func (f fixture) sandbox(t *testing.T, mode Mode, network bool) *Sandbox {
	t.Helper()
	s, err := New(Config{Mode: mode, Network: network, Writable: []string{f.ws}, Secrets: DefaultSecrets(f.home)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// run runs script with bash -c in the workspace, confined by s, and
// returns its combined output and whether it succeeded.
func (f fixture) run(t *testing.T, s *Sandbox, script string) (string, bool) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Dir = f.ws
	cmd.Env = append(os.Environ(), "HOME="+f.home, "WS="+f.ws, "OUT="+f.outside, "ADDR="+f.addr,
		"HOST="+strings.Split(f.addr, ":")[0], "PORT="+strings.Split(f.addr, ":")[1], "SELF="+self, "ABSTRACT="+f.abstract)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := s.Start(cmd); err != nil {
		t.Fatalf("starting %q: %v", script, err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %q: %v", script, err)
	}
	return out.String(), err == nil
}

func TestSandboxConfinesCommandsAndEveryProcessTheyStart(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, script string
		mode         Mode
		network      bool
		ok           bool
	}{
		{"workspace-write writes in the workspace", `echo x > "$WS/new" && mkdir "$WS/d" && mv "$WS/new" "$WS/d/" && rm -r "$WS/d"`, WorkspaceWrite, false, true},
		{"workspace-write writes in its TMPDIR", `case "$TMPDIR" in */atomic-sandbox-*) echo x > "$TMPDIR/t" && cat "$TMPDIR/t";; *) exit 9;; esac`, WorkspaceWrite, false, true},
		{"writes to /dev/null are allowed", `echo x > /dev/null && head -c 1 /dev/zero >/dev/null`, ReadOnly, false, true},
		{"workspace-write refuses /tmp outside the sandbox temp", `touch /tmp/atomic-sandbox-test-outside-$$`, WorkspaceWrite, false, false},
		{"workspace-write refuses a folder outside", `touch "$OUT/new"`, WorkspaceWrite, false, false},
		{"workspace-write refuses the user's dotfiles", `echo x >> ~/.bashrc`, WorkspaceWrite, false, false},
		{"a setsid grandchild cannot write outside", `setsid -w bash -c 'echo x > "$OUT/daemon"'`, WorkspaceWrite, false, false},
		{"a double-forked child cannot write outside", `( (sleep 0.1; echo x > "$OUT/forked") & ) ; sleep 0.5; test -e "$OUT/forked"`, WorkspaceWrite, false, false},
		{"read-only refuses workspace writes", `echo x > "$WS/ro"`, ReadOnly, false, false},
		{"read-only still writes its TMPDIR", `echo x > "$TMPDIR/t"`, ReadOnly, false, true},
		{"files outside the workspace are readable", `cat "$OUT/file.txt" ~/notes.txt /etc/hostname >/dev/null`, WorkspaceWrite, false, true},
		{"secret stores are not readable", `cat ~/.ssh/id_x`, WorkspaceWrite, false, false},
		{"secret store names can still be listed", `ls ~/.ssh | grep -qx id_x`, WorkspaceWrite, false, true},
		{"Atomic's own environment is not readable", `cat /proc/$PPID/environ`, WorkspaceWrite, true, false},
		{"Atomic cannot be signalled", `kill -0 $PPID`, WorkspaceWrite, true, false},
		{"a Go net.Dial to loopback TCP fails without network", `"$SELF" x`, WorkspaceWrite, false, false},
		{"curl to loopback fails without network", `curl -sS -m 5 "http://$ADDR/"; test $? -ne 7 -a $? -ne 6 -a $? -ne 0 || exit 1`, WorkspaceWrite, false, false},
		{"UDP fails without network", `exec 3<>/dev/udp/$HOST/$PORT`, WorkspaceWrite, false, false},
		{"abstract unix sockets bound outside are refused", `python3 -c 'import os, socket; socket.socket(socket.AF_UNIX).connect("\0" + os.environ["ABSTRACT"])'`, WorkspaceWrite, true, false},
		{"abstract unix sockets bound outside answer an unsandboxed command", `python3 -c 'import os, socket; socket.socket(socket.AF_UNIX).connect("\0" + os.environ["ABSTRACT"])'`, Off, true, true},
		{"unix sockets work without network", `python3 -c 'import socket; socket.socket(socket.AF_UNIX).close()' 2>/dev/null || bash -c 'true'`, WorkspaceWrite, false, true},
		{"a Go net.Dial works with network", `"$SELF" x`, WorkspaceWrite, true, true},
		{"TCP and UDP work with network", `exec 3<>/dev/tcp/$HOST/$PORT && exec 4<>/dev/udp/$HOST/$PORT`, WorkspaceWrite, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := f.sandbox(t, tt.mode, tt.network)
			script := strings.ReplaceAll(tt.script, `"$SELF" x`, helperEnv+`="dial tcp $ADDR" "$SELF"`)
			out, ok := f.run(t, s, script)
			if ok != tt.ok {
				t.Fatalf("%s: succeeded %v, want %v; output:\n%s", tt.script, ok, tt.ok, out)
			}
		})
	}
	for _, p := range []string{filepath.Join(f.outside, "new"), filepath.Join(f.outside, "daemon"), filepath.Join(f.outside, "forked"), filepath.Join(f.ws, "ro")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if rc := readFile(t, filepath.Join(f.home, ".bashrc")); rc != "# rc\n" {
		t.Errorf(".bashrc changed: %q", rc)
	}
}

func TestSandboxConfinesOnlyTheCommandsThreadNotAtomic(t *testing.T) {
	f := newFixture(t)
	s := f.sandbox(t, WorkspaceWrite, false)
	// Alternate confined and plain starts: a confined thread reused for a
	// plain start (or for this goroutine) would make the plain ones fail.
	for i := range 20 {
		if _, ok := f.run(t, s, `touch "$OUT/confined"`); ok {
			t.Fatalf("round %d: the confined command wrote outside", i)
		}
		if out, ok := f.run(t, nil, `touch "$OUT/plain" && curl -sS -m 5 -o /dev/null "http://$ADDR/" ; test $? -ne 7`); !ok {
			t.Fatalf("round %d: an unconfined command was refused: %s", i, out)
		}
		if err := os.WriteFile(filepath.Join(f.outside, "atomic"), []byte("x"), 0o644); err != nil {
			t.Fatalf("round %d: Atomic itself lost a right: %v", i, err)
		}
		if c, err := net.Dial("tcp", f.addr); err != nil {
			t.Fatalf("round %d: Atomic itself lost the network: %v", i, err)
		} else {
			c.Close()
		}
	}
}

func TestSandboxTempDirIsRemovedOnClose(t *testing.T) {
	s, err := New(Config{Mode: ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	dir := s.TempDir()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("temp dir missing while open: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temp dir %s still there after Close: %v", dir, err)
	}
	if err := s.Start(exec.Command("true")); !errors.Is(err, errClosed) {
		t.Fatalf("Start after Close = %v, want %v", err, errClosed)
	}
}

func TestNewRefusesAWritableFolderThatDoesNotExist(t *testing.T) {
	_, err := New(Config{Mode: WorkspaceWrite, Writable: []string{"/nonexistent/atomic-ws"}})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/atomic-ws") {
		t.Fatalf("err = %v, want one naming the folder", err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkNew is the once-per-session cost: the temp dir, the rule plan
// (a walk of / and the folders leading to secrets) and the ruleset.
func BenchmarkNew(b *testing.B) {
	home, _ := os.UserHomeDir()
	for b.Loop() {
		s, err := New(Config{Mode: WorkspaceWrite, Writable: []string{b.TempDir()}, Secrets: DefaultSecrets(home)})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func TestCommandsOfOneNarrowingShareOneConfinedThreadAndStayConfinedAsTheFirst(t *testing.T) {
	f := newFixture(t)
	s := f.sandbox(t, WorkspaceWrite, false)
	sub := filepath.Join(f.ws, "wt")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	narrow := s.Narrow(sub)
	for i := range 5 { // interleaved: each view keeps its own rules
		if out, ok := f.run(t, s, fmt.Sprintf("echo %d > $WS/top-%d && ! cat $HOME/.ssh/id_x && ! echo x > $OUT/w", i, i)); !ok {
			t.Fatalf("session command %d: %s", i, out)
		}
		if out, ok := f.run(t, narrow, fmt.Sprintf("echo %d > $WS/wt/n-%d && ! echo x > $WS/n-%d && ! cat $HOME/.ssh/id_x", i, i, i)); !ok {
			t.Fatalf("narrowed command %d: %s", i, out)
		}
	}
	k := s.p.kernel
	k.smu.Lock()
	n := len(k.spawners)
	k.smu.Unlock()
	if n != 2 {
		t.Fatalf("%d confined threads for ten commands of two narrowings, want 2", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(exec.Command("/bin/true")); !errors.Is(err, errClosed) {
		t.Fatalf("Start after Close: %v, want errClosed", err)
	}
}
