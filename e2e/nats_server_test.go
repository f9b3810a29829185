//go:build unix

package e2e

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

var (
	natsServerOnce sync.Once
	natsServerErr  error
)

// installNATSServer builds atomic-nats beside the atomic under test, where
// `go install ./cmd/...` puts it.
func installNATSServer(t *testing.T) {
	t.Helper()
	natsServerOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		build := exec.Command("go", "build", "-o", filepath.Join(filepath.Dir(binary), "atomic-nats"), "./cmd/atomic-nats")
		build.Env = shipBuild()
		build.Dir = filepath.Dir(filepath.Dir(file))
		if out, err := build.CombinedOutput(); err != nil {
			natsServerErr = &buildError{err: err, out: string(out)}
		}
	})
	if natsServerErr != nil {
		t.Fatal(natsServerErr)
	}
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "building atomic-nats: " + e.err.Error() + ": " + e.out }

// `atomic nats` runs atomic-nats, found beside atomic, in its own place:
// one process (the pid atomic started with serves), JetStream on the
// address given, and a SIGTERM ends it with status 0.
func TestAtomicNATSRunsTheServerInstalledBesideIt(t *testing.T) {
	installNATSServer(t)
	cmd := exec.Command(binary, "nats", "--listen", "127.0.0.1:0", "--store", t.TempDir())
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	listening := regexp.MustCompile(`^nats listening on (nats://\S+)`)
	var url string
	for url == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("atomic nats ended before listening")
			}
			if m := listening.FindStringSubmatch(l); m != nil {
				url = m[1]
			}
		case <-time.After(30 * time.Second):
			t.Fatal("atomic nats not listening after 30s")
		}
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe")
	if err != nil || filepath.Base(exe) != "atomic-nats" {
		t.Errorf("pid %d runs %s (%v), want atomic-nats in atomic's place", cmd.Process.Pid, exe, err)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.AccountInfo(ctx); err != nil {
		t.Errorf("JetStream at %s: %v", url, err)
	}
	nc.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v, want exit 0", err)
	}
}

// An atomic without atomic-nats beside it or on PATH says how to get it.
func TestAtomicNATSWithoutItsServerSaysHowToInstallIt(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "atomic")
	src, err := os.Open(binary)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(alone, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	cmd := exec.Command(alone, "nats", "--listen", "127.0.0.1:0")
	cmd.Env = []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("exit %v, output %q; want exit 1", err, out)
	}
	for _, want := range []string{"atomic-nats", "go install ./cmd/..."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
}
