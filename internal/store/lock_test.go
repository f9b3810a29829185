package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// holderEnv, set to "id:path", makes the test binary a process that
// holds session id of the store at path until its stdin closes.
const holderEnv = "ATOMIC_STORE_TEST_HOLDER"

func holdUntilStdinCloses(spec string) int {
	id, path, _ := strings.Cut(spec, ":")
	h, err := HoldSession(context.Background(), path, id)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	h.Release()
	return 0
}

// holder is another process holding a session.
type holder struct {
	cmd   *exec.Cmd
	stdin io.Closer
}

// startHolder starts a process that holds session id of the store at path
// and returns once it holds it.
func startHolder(t *testing.T, path, id string) *holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+id+":"+path)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &holder{cmd: cmd, stdin: in}
	t.Cleanup(func() { h.stdin.Close(); h.cmd.Process.Kill(); h.cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("the holder process said %q; want held", line)
	}
	return h
}

// runningSession records session id in the store at path and leaves it
// running, as a run that was killed does.
func runningSession(t *testing.T, path, id string) {
	t.Helper()
	h, err := HoldSession(context.Background(), path, id)
	if err != nil {
		t.Fatal(err)
	}
	m := meta(id)
	m.Hold = h
	r := Record(path, Options{}, m, nil)
	r.Prompt("a long job")
	r.Wait(r.Mark())
	h.Release() // as the kernel does when the run is killed
	// What Close would do at the end of a run, it must not do here: the
	// row stays running. Open the store aside and check it.
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var status string
	st.db.QueryRow(`SELECT status FROM sessions WHERE id = ?`, id).Scan(&status)
	st.Close()
	if status != StatusRunning {
		t.Fatalf("recorded status %q; want running", status)
	}
	t.Cleanup(r.Close)
}

func status(t *testing.T, path, id string) string {
	t.Helper()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	one, err := st.Session(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.ID == id && s.Status != one.Status {
			t.Fatalf("Sessions says %s, Session says %s", s.Status, one.Status)
		}
	}
	return one.Status
}

func TestASessionHeldByAnotherProcessIsRefusedNamingItsPid(t *testing.T) {
	path := dbPath(t)
	runningSession(t, path, "s1")
	h := startHolder(t, path, "s1")
	start := time.Now()
	_, err := HoldSession(context.Background(), path, "s1")
	var held *HeldError
	if !errors.As(err, &held) || held.PID != h.cmd.Process.Pid {
		t.Fatalf("HoldSession: %v; want a HeldError naming pid %d", err, h.cmd.Process.Pid)
	}
	want := fmt.Sprintf("session s1 is open in another Atomic (pid %d); wait for it to end or use --continue/--resume another", h.cmd.Process.Pid)
	if err.Error() != want {
		t.Fatalf("error %q; want %q", err, want)
	}
	if waited := time.Since(start); waited < HoldWait {
		t.Fatalf("refused after %v; want it to retry for %v first", waited, HoldWait)
	}
	if s := status(t, path, "s1"); s != StatusRunning {
		t.Fatalf("a session a live process holds is listed %s; want running", s)
	}
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Remove(context.Background(), "s1"); !errors.As(err, &held) {
		t.Fatalf("Remove of a held session: %v; want it refused", err)
	}
	if _, err := st.Session(context.Background(), "s1"); err != nil {
		t.Fatalf("the refused Remove removed it: %v", err)
	}
}

func TestARecorderHoldsItsSessionUntilItCloses(t *testing.T) {
	path := dbPath(t)
	r := Record(path, Options{}, meta("s1"), nil)
	r.Prompt("work")
	r.Wait(r.Mark())
	if s := status(t, path, "s1"); s != StatusRunning || !Held(path, "s1") {
		t.Fatalf("while recording: %s, held %v; want running and held", s, Held(path, "s1"))
	}
	r.Close()
	if s := status(t, path, "s1"); s != StatusInterrupted || Held(path, "s1") {
		t.Fatalf("after Close: %s, held %v; want interrupted (no complete) and free", s, Held(path, "s1"))
	}
}

func TestTwoHoldsInOneProcessExcludeEachOther(t *testing.T) {
	path := dbPath(t)
	a, err := HoldSession(context.Background(), path, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := HoldSession(context.Background(), path, "s1"); !errors.As(err, new(*HeldError)) {
		t.Fatalf("second hold in the same process: %v; want it refused", err)
	}
	if !Held(path, "s1") {
		t.Fatal("Held says no while this process holds it")
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if Held(path, "s1") {
		t.Fatal("Held says yes after the release")
	}
	b, err := HoldSession(context.Background(), path, "s1")
	if err != nil {
		t.Fatalf("hold after the release: %v", err)
	}
	b.Release()
}

func TestARunningSessionWithoutALiveHolderIsListedInterrupted(t *testing.T) {
	path := dbPath(t)
	runningSession(t, path, "s1")
	if s := status(t, path, "s1"); s != StatusInterrupted {
		t.Fatalf("a running session no process holds is listed %s; want interrupted", s)
	}
	h, err := HoldSession(context.Background(), path, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if s := status(t, path, "s1"); s != StatusRunning {
		t.Fatalf("held by this process, it is listed %s; want running", s)
	}
}

func TestAnIDThatIsNoFileNameIsRefusedAndCreatesNothing(t *testing.T) {
	path := dbPath(t)
	for _, id := range []string{"", "../escape", "a/b", ".hidden", `a\b`, strings.Repeat("x", 201)} {
		if _, err := HoldSession(context.Background(), path, id); !errors.Is(err, ErrUnknownSession) {
			t.Errorf("HoldSession(%q): %v; want ErrUnknownSession", id, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "escape.lock")); err == nil {
		t.Fatal("a lock file was made outside the locks directory")
	}
}
