//go:build linux

// Command shim runs a program and reports what it used: its peak resident
// memory as the kernel counts it (ru_maxrss), the peak of its whole
// process tree (sampled), its CPU and its wall time. See package peakrss,
// which builds and runs it.
//
//	shim -out FILE [-every DURATION] -- PROGRAM [ARG...]
//
// Sampling a tree of hundreds of processes every 2 ms takes a good part
// of a core: -every 0 skips it where only the program's own figures are
// wanted, so the shim does not slow what it measures.
//
// It exists because a Go program cannot measure a child's memory itself:
// Go starts a child with a vfork-style clone (CLONE_VM), so until the
// child's exec the child runs in the parent's memory, and the kernel folds
// that memory's high-water mark into the child's ru_maxrss. A child of a
// large test process reads as large as the test process. Started from
// this small program instead, the child's ru_maxrss is its own peak (or
// this program's few MB, if that is larger).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

func main() {
	out := flag.String("out", "", "write the report (JSON) to `FILE`")
	every := flag.Duration("every", 2*time.Millisecond, "sample the process tree's memory this often (0: never; no tree figure)")
	flag.Parse()
	args := flag.Args()
	if *out == "" || len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: shim -out FILE [-every D] -- PROGRAM [ARG...]")
		os.Exit(2)
	}
	code, err := run(*out, *every, args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shim:", err)
		os.Exit(127)
	}
	os.Exit(code)
}

// report is what the shim writes; package peakrss reads it.
type report struct {
	StartUnixNano int64 `json:"start_unix_nano"`
	WallNS        int64 `json:"wall_ns"`
	// MaxRSSKB is the program's ru_maxrss: the peak of the largest
	// single process in its tree (the kernel keeps the maximum of a
	// process and the descendants it reaped).
	MaxRSSKB int64 `json:"max_rss_kb"`
	// CPUNS is the user and system CPU of the program and every
	// descendant reaped in its tree.
	CPUNS int64 `json:"cpu_ns"`
	// TreePeakKB is the largest sum, over the samples, of the peak
	// (VmHWM) of each process of the tree alive at the sample.
	TreePeakKB int64  `json:"tree_peak_kb"`
	Samples    int    `json:"samples"`
	Procs      []proc `json:"procs"`
}

type proc struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm"`
	// HWMKB is the last VmHWM read of the process: its own peak, but
	// for growth in its last sampling interval.
	HWMKB int64 `json:"hwm_kb"`
}

func run(out string, every time.Duration, args []string) (int, error) {
	path := args[0]
	if lp, err := exec.LookPath(path); err == nil {
		path = lp
	}
	// The child gets SIGKILL when this process dies: the kernel ties
	// that to the thread that started it, kept for main to the end.
	runtime.LockOSThread()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	start := time.Now()
	pid, err := syscall.ForkExec(path, args, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		return 0, fmt.Errorf("starting %s: %w", args[0], err)
	}
	t := newTree(pid)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		if every > 0 {
			t.sample(every, stop)
		}
	}()
	go func() {
		for s := range sigs {
			_ = syscall.Kill(pid, s.(syscall.Signal))
		}
	}()
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err = syscall.Wait4(pid, &ws, 0, &ru)
		if err != syscall.EINTR {
			break
		}
	}
	wall := time.Since(start)
	close(stop)
	<-sampled
	if err != nil {
		return 0, fmt.Errorf("waiting for %s: %w", args[0], err)
	}
	r := report{StartUnixNano: start.UnixNano(), WallNS: wall.Nanoseconds(), MaxRSSKB: ru.Maxrss,
		CPUNS: ru.Utime.Nano() + ru.Stime.Nano(), TreePeakKB: t.peak, Samples: t.samples, Procs: t.list()}
	b, _ := json.Marshal(r)
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return 0, err
	}
	switch {
	case ws.Exited():
		return ws.ExitStatus(), nil
	case ws.Signaled():
		return 128 + int(ws.Signal()), nil
	}
	return 1, nil
}
