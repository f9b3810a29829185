//go:build linux

package peakrss

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// shim is the measuring shim; alloc the program it measures
// (testdata/alloc), both built without the race detector.
var shim, alloc string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "peakrss-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if shim, err = Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	alloc = filepath.Join(dir, "alloc")
	build := exec.Command("go", "build", "-o", alloc, "./testdata/alloc")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building testdata/alloc: %v: %s\n", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// touched allocates mb MB and writes every page of it, so all of it is
// resident.
func touched(mb int) []byte {
	b := make([]byte, mb<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	return b
}

// measured runs alloc with args under the shim and returns the report.
func measured(t *testing.T, args ...string) Report {
	t.Helper()
	return measuredWith(t, Wrap, args...)
}

func measuredWith(t *testing.T, wrap func(testing.TB, string, *exec.Cmd) *Run, args ...string) Report {
	t.Helper()
	cmd := exec.Command(alloc, args...)
	cmd.Stderr = os.Stderr
	run := wrap(t, shim, cmd)
	if err := cmd.Run(); err != nil {
		t.Fatalf("measured run: %v", err)
	}
	r, err := run.Report()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// near fails unless got is want give or take tol.
func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if got < want-tol || got > want+tol {
		t.Errorf("%s = %.1f MB, want %.1f ± %.1f MB", what, got, want, tol)
	}
}

// A child started from a large process reads as large as that process
// when its own rusage is asked (the defect scripts/bench.sh had: 133 MB
// for a 44 MB Atomic); started through the shim it reads its own peak: a
// child that allocates N MB and exits at once reads N MB over its base.
func TestAChildsPeakIsItsOwnNotItsLargeParents(t *testing.T) {
	const parentMB, childMB = 160, 48
	ballast := touched(parentMB) // this test process: now over 160 MB
	defer runtime.KeepAlive(ballast)

	naive := exec.Command(alloc)
	if err := naive.Run(); err != nil {
		t.Fatal(err)
	}
	if rss := float64(naive.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024; rss < parentMB {
		t.Fatalf("control: a child of this %d MB process read %.1f MB in its own rusage, want the parent's size "+
			"(the kernel did not fold the parent's memory in: this test proves nothing here)", parentMB, rss)
	}

	base := measured(t)
	got := measured(t, "-mb", fmt.Sprint(childMB))
	t.Logf("base %.1f MB, with %d MB: %.1f MB (tree %.1f MB)", base.MaxRSSMB, childMB, got.MaxRSSMB, got.TreePeakMB)
	if base.MaxRSSMB > 20 {
		t.Errorf("the program alone read %.1f MB, want its few MB", base.MaxRSSMB)
	}
	near(t, "peak of a child that allocates 48 MB", got.MaxRSSMB-base.MaxRSSMB, childMB, 2)
}

// The tree's peak is the sum of what its processes hold at once: a
// program holding 16 MB whose child holds 40 MB for 200 ms reads the two
// together, and its largest process is the child.
func TestATreesPeakAddsTheProcessesAliveAtOnce(t *testing.T) {
	const parentMB, childMB = 16, 40
	base := measured(t, "-hold", "200ms")
	got := measured(t, "-mb", fmt.Sprint(parentMB), "-child-mb", fmt.Sprint(childMB), "-hold", "200ms")
	t.Logf("base %.1f MB (tree %.1f); program %d MB + child %d MB: largest %.1f MB, tree %.1f MB, %v",
		base.MaxRSSMB, base.TreePeakMB, parentMB, childMB, got.MaxRSSMB, got.TreePeakMB, got.Procs)
	near(t, "largest process (the child)", got.MaxRSSMB-base.MaxRSSMB, childMB, 2)
	near(t, "tree", got.TreePeakMB-2*base.TreePeakMB, parentMB+childMB, 3)
	if len(got.Procs) != 2 {
		t.Errorf("processes seen = %v, want the program and its child", got.Procs)
	}
	if got.Wall < 200*time.Millisecond || got.CPU <= 0 {
		t.Errorf("wall %s, CPU %s: want at least the 200 ms held, and some CPU", got.Wall, got.CPU)
	}
}

// A process between its fork and its exec is its parent's memory, not a
// process of its own: Go's os/exec makes one for an instant before each
// exec (and one more, once, to probe for pidfds), and counted it makes
// the tree read its parent twice. A program holding 16 MB that keeps such
// a clone for 200 ms reads 16 MB, one process.
func TestAProcessThatHasNotExecdIsNotCountedBesideItsParent(t *testing.T) {
	const mb = 16
	base := measured(t, "-hold", "100ms")
	got := measured(t, "-mb", fmt.Sprint(mb), "-unexeced-hold", "200ms")
	t.Logf("base %.1f MB (tree %.1f); %d MB with a clone that never execs: tree %.1f MB, %v",
		base.MaxRSSMB, base.TreePeakMB, mb, got.TreePeakMB, got.Procs)
	near(t, "tree", got.TreePeakMB-base.TreePeakMB, mb, 3)
	if len(got.Procs) != 1 {
		t.Errorf("processes seen = %v, want the program alone", got.Procs)
	}
}

// WrapOwn samples no tree (it costs the run measured CPU) and still reads
// the program's own peak exactly.
func TestWithoutTreeSamplingTheOwnPeakIsStillItsOwnAndNoTreeIsReported(t *testing.T) {
	const childMB = 48
	base := measuredWith(t, WrapOwn)
	got := measuredWith(t, WrapOwn, "-mb", fmt.Sprint(childMB))
	near(t, "peak of a child that allocates 48 MB", got.MaxRSSMB-base.MaxRSSMB, childMB, 2)
	if got.TreePeakMB != 0 || len(got.Procs) != 0 {
		t.Errorf("the tree was sampled: tree %.1f MB, %d processes", got.TreePeakMB, len(got.Procs))
	}
	if got.CPU <= 0 || got.Wall <= 0 {
		t.Errorf("CPU %v, wall %v: want both measured", got.CPU, got.Wall)
	}
}
