package reaper

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/procstat"
)

// startSleepers starts a shell that leaves a background sleep, a setsid
// one and a double-forked one, and returns their pids once written.
func startSleepers(t *testing.T) (*exec.Cmd, []int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command("/bin/sh", "-c", `sleep 300 & echo $! >> "$1"; setsid sleep 300 & echo $! >> "$1"; (sleep 300 & echo $! >> "$1") ; sleep 300`, "sh", pidFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(pidFile)
		if f := strings.Fields(string(b)); len(f) == 3 {
			var pids []int
			for _, s := range f {
				p, _ := strconv.Atoi(s)
				pids = append(pids, p)
			}
			return cmd, pids
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the shell never wrote its pids")
	return nil, nil
}

func TestCloseEndsEveryDescendantIncludingSetsidAndDoubleForkedOnes(t *testing.T) {
	tree := Adopt()
	cmd, pids := startSleepers(t)
	got := descendants(os.Getpid())
	for _, p := range append(pids, cmd.Process.Pid) {
		if !slices.Contains(got, p) {
			t.Fatalf("descendants %v lack %d (the subreaper should have adopted orphans)", got, p)
		}
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	tree.Close(time.Second)
	<-waited
	// The orphans were adopted by this process; reap them so "gone" is
	// observable as ESRCH rather than as a zombie.
	reapAll(0)
	for _, p := range pids {
		if err := syscall.Kill(p, 0); err == nil {
			if state, _, err := procstat.Read(p); err == nil && state != 'Z' {
				t.Fatalf("sleep %d survived Close (state %c)", p, state)
			}
		}
	}
	if d := descendants(os.Getpid()); len(d) != 0 {
		t.Fatalf("descendants left: %v", d)
	}
}

func TestDescendantsDoesNotCountZombies(t *testing.T) {
	cmd := exec.Command("/bin/true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until it is a zombie, unreaped.
	deadline := time.Now().Add(5 * time.Second)
	for {
		state, _, err := procstat.Read(cmd.Process.Pid)
		if err == nil && state == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child never exited: state %c err %v", state, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if d := descendants(os.Getpid()); slices.Contains(d, cmd.Process.Pid) {
		t.Fatalf("a zombie counted as running: %v", d)
	}
	cmd.Wait()
}

func TestAdoptedOrphansAreReapedWhileChildrenStartedHereStayWaitable(t *testing.T) {
	tree := Adopt()
	defer tree.Close(time.Second)
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The shell exits at once; its background child is adopted here and
	// exits soon after.
	orphaner := exec.Command("/bin/sh", "-c", `sleep 0.2 & echo $! > "$1"`, "sh", pidFile)
	// A child of our own that exits while the orphan is being reaped: its
	// status must still reach Wait.
	own := exec.Command("/bin/sh", "-c", "sleep 0.3; exit 7")
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	if err := orphaner.Run(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pidFile)
	orphan, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q", b)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, _, err := procstat.Read(orphan); err != nil {
			break // reaped: gone from /proc
		}
		if time.Now().After(deadline) {
			state, ppid, _ := procstat.Read(orphan)
			t.Fatalf("orphan %d not reaped: state %c, parent %d (we are %d)", orphan, state, ppid, os.Getpid())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // own has exited by now
	err = own.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("our own child's Wait got %v, want exit status 7", err)
	}
}

// scanCounter wraps a /proc scan and counts its calls.
type scanCounter struct {
	n    int
	list func(int) []int
}

func (c *scanCounter) scan(pid int) []int {
	c.n++
	return c.list(pid)
}

func TestKillDescendantsReadsProcOnlyWhenThisProcessHasAChild(t *testing.T) {
	if any, zombie := peekChild(); any {
		t.Fatalf("the test process has a child already (zombie %d): a test before this one left it", zombie)
	}
	c := &scanCounter{list: descendants}
	killDescendants(os.Getpid(), time.Second, c.scan)
	if c.n != 0 {
		t.Fatalf("/proc read %d times with no child to end", c.n)
	}
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killDescendants(os.Getpid(), time.Second, c.scan)
	err := cmd.Wait()
	var ee *exec.ExitError
	if c.n == 0 || !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("a running child: %d scans, Wait %v; want it ended by SIGTERM", c.n, err)
	}
}

func TestPeekChildSeesAZombieWithoutReapingIt(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exit 3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if any, pid := peekChild(); any && pid == cmd.Process.Pid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("peekChild never reported the exited child %d", cmd.Process.Pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Wait after peekChild got %v, want exit status 3", err)
	}
	if any, pid := peekChild(); any {
		t.Fatalf("a child is left after Wait (zombie %d)", pid)
	}
}

func TestReapOrphansReadsProcOnlyWhenAZombieIsWaitedForElsewhere(t *testing.T) {
	// Nothing exited: no scan.
	c := &scanCounter{list: zombieChildren}
	reapOrphans(os.Getpid(), c.scan)
	if c.n != 0 {
		t.Fatalf("/proc read %d times with no child exited", c.n)
	}
	// A child os/exec will wait for has exited: it is left for Wait, and
	// finding the other zombies takes the scan.
	own := exitedChild(t, 5)
	reapOrphans(os.Getpid(), c.scan)
	var ee *exec.ExitError
	if err := own.Wait(); c.n != 1 || !errors.As(err, &ee) || ee.ExitCode() != 5 {
		t.Fatalf("%d scans, Wait %v; want one scan and exit status 5 for Wait", c.n, err)
	}
}

func TestChildrenStartedWhileOrphansAreReapedStayWaitable(t *testing.T) {
	// Many short children of our own start and exit while reapOrphans
	// runs over and over (a busy worker's git commands under the
	// reaper): none may be reaped behind its Wait's back.
	stop := make(chan struct{})
	reaping := make(chan struct{})
	go func() {
		defer close(reaping)
		for {
			select {
			case <-stop:
				return
			default:
				reapOrphans(os.Getpid(), zombieChildren)
			}
		}
	}()
	defer func() {
		close(stop)
		<-reaping
	}()
	errs := make(chan error, 200)
	for range 200 {
		go func() { errs <- exec.Command("true").Run() }()
	}
	for range 200 {
		if err := <-errs; err != nil {
			t.Fatalf("a child of our own lost its exit status: %v", err)
		}
	}
}

func TestABurstOfChildExitsLooksForOrphansOnceAtOnceAndOnceWhenTheIntervalEnds(t *testing.T) {
	// A child of our own has exited and waits for its Wait: every SIGCHLD
	// meanwhile finds a zombie, and only a look tells whose it is.
	own := exitedChild(t, 3)
	c := &scanCounter{list: zombieChildren}
	chld, stop, done := make(chan os.Signal, 1), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		reapLoop(os.Getpid(), chld, stop, c.scan, 300*time.Millisecond)
	}()
	for range 50 { // fifty exits within the interval
		chld <- syscall.SIGCHLD
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // the interval's end, and some
	close(stop)
	<-done
	var ee *exec.ExitError
	if err := own.Wait(); c.n != 2 || !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("%d looks, Wait %v; want 2 (the first signal's, the interval's end) and exit status 3 for Wait", c.n, err)
	}
}

// exitedChild starts a child that exits with code and returns once it is
// a zombie waiting for its Wait.
func exitedChild(t *testing.T, code int) *exec.Cmd {
	t.Helper()
	own := exec.Command("/bin/sh", "-c", "exit "+strconv.Itoa(code))
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, pid := peekChild(); pid == own.Process.Pid {
			return own
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never exited")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
