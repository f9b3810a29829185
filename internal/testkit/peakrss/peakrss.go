//go:build linux

// Package peakrss measures what a process a test starts uses: the peak
// resident memory of the process and of its whole tree, its CPU and its
// wall time, through a small shim (./shim) that starts it.
//
// A test cannot read a child's memory from the child's own rusage: Go
// starts a child with a vfork-style clone, so the child runs in its
// parent's memory until its exec, and the kernel counts the parent's
// high-water mark as the child's ru_maxrss. A child of a 130 MB test
// process reads 130 MB, whatever it used. The shim is a few MB, so the
// ru_maxrss of a child it starts is the child's own peak (or the shim's
// few MB, if the child never reached them).
package peakrss

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// Build compiles the shim into dir and returns its path.
func Build(dir string) (string, error) {
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(dir, "peakrss-shim")
	cmd := exec.Command("go", "build", "-o", bin, "./shim")
	cmd.Dir = filepath.Dir(file)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the peakrss shim: %w: %s", err, out)
	}
	return bin, nil
}

// Report is what one run used.
type Report struct {
	// Start is when the shim started the program; Wall is until it
	// ended (the shim's own start is in neither).
	Start time.Time
	Wall  time.Duration
	// MaxRSSMB is the largest own peak of a single process of the
	// tree, exact (the kernel's ru_maxrss of the program, which keeps
	// the maximum over the descendants it reaped).
	MaxRSSMB float64
	// TreePeakMB is the largest sum of the own peaks (VmHWM) of the
	// tree's processes alive at once, sampled every 2 ms: at most a
	// few ms of a process's last growth is missed, and a process that
	// lives less than 20 ms may be missed altogether.
	TreePeakMB float64
	// CPU is the user and system time of the program and of every
	// descendant reaped in its tree.
	CPU   time.Duration
	Procs []Proc
}

// Proc is one process of the tree and its own peak.
type Proc struct {
	PID    int     `json:"pid"`
	Comm   string  `json:"comm"`
	HWMKB  int64   `json:"hwm_kb"`
	PeakMB float64 `json:"-"`
}

// Run is a command wrapped to run under the shim.
type Run struct{ out string }

// Wrap makes cmd, not yet started, run under shim; once it has ended,
// Report gives the figures. cmd's exit status is the program's.
func Wrap(t testing.TB, shim string, cmd *exec.Cmd) *Run {
	t.Helper()
	return wrap(t, shim, cmd, "2ms")
}

// WrapOwn is Wrap without the tree's figures (TreePeakMB and Procs stay
// empty): the shim does not sample the tree, which for hundreds of
// processes takes CPU from the program measured.
func WrapOwn(t testing.TB, shim string, cmd *exec.Cmd) *Run {
	t.Helper()
	return wrap(t, shim, cmd, "0")
}

func wrap(t testing.TB, shim string, cmd *exec.Cmd, every string) *Run {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "peakrss-*.json")
	if err != nil {
		t.Fatal(err)
	}
	out.Close()
	args := append([]string{shim, "-out", out.Name(), "-every", every, "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = shim, args
	return &Run{out: out.Name()}
}

// Report reads the figures of the ended run.
func (r *Run) Report() (Report, error) {
	b, err := os.ReadFile(r.out)
	if err != nil {
		return Report{}, fmt.Errorf("reading the shim's report: %w", err)
	}
	var raw struct {
		StartUnixNano int64  `json:"start_unix_nano"`
		WallNS        int64  `json:"wall_ns"`
		MaxRSSKB      int64  `json:"max_rss_kb"`
		CPUNS         int64  `json:"cpu_ns"`
		TreePeakKB    int64  `json:"tree_peak_kb"`
		Procs         []Proc `json:"procs"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return Report{}, fmt.Errorf("the shim's report %s: %w", b, err)
	}
	for i := range raw.Procs {
		raw.Procs[i].PeakMB = float64(raw.Procs[i].HWMKB) / 1024
	}
	return Report{Start: time.Unix(0, raw.StartUnixNano), Wall: time.Duration(raw.WallNS),
		MaxRSSMB: float64(raw.MaxRSSKB) / 1024, TreePeakMB: float64(raw.TreePeakKB) / 1024,
		CPU: time.Duration(raw.CPUNS), Procs: raw.Procs}, nil
}
