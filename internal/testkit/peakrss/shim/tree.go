//go:build linux

package main

import (
	"bytes"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/atomic-agent/atomic/internal/procstat"
)

// tree follows a process and its descendants. Their VmHWM (each
// process's own peak) only grows while it lives, so a process found late
// loses nothing, and a sample misses only what a process gains in its
// last interval.
type tree struct {
	root    int
	procs   map[int]*proc
	alive   map[int]bool
	peak    int64
	samples int
}

func newTree(root int) *tree {
	return &tree{root: root, procs: map[int]*proc{}, alive: map[int]bool{}}
}

// sample reads the tree every interval until stop is closed, each time
// first looking for new descendants (a few reads: a helper that lives
// 20 ms is seen).
func (t *tree) sample(every time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		t.find()
		t.read()
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// find adds the live descendants of the root not yet followed, found
// through each one's threads' children files: a few reads, where a scan
// of /proc read every process of the machine every 20 ms and took as much
// CPU as the run it measured.
func (t *tree) find() {
	if len(t.procs) == 0 {
		t.add(t.root)
	}
	seen := map[int]bool{}
	queue := []int{t.root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		for _, c := range children(p) {
			if _, ok := t.procs[c]; !ok {
				t.add(c)
			}
			queue = append(queue, c)
		}
	}
}

// children lists pid's child processes from /proc/PID/task/*/children.
func children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, task := range tasks {
		b, err := os.ReadFile(dir + task.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

func (t *tree) add(pid int) {
	t.procs[pid] = &proc{PID: pid}
	t.alive[pid] = true
}

// read takes each live process's VmHWM and the tree's sum of them.
func (t *tree) read() {
	var sum int64
	for pid := range t.alive {
		// A process that has not exec'd yet holds its parent's memory
		// (Go's vfork-style clone before its exec, or the clone Go
		// starts once to probe for pidfds): counted, the parent would
		// count twice.
		if execd, ok := procstat.Execd(pid); ok && !execd {
			continue
		}
		comm, hwm, ok := status(pid)
		if !ok { // gone, or a zombie whose memory is already freed
			delete(t.alive, pid)
			continue
		}
		p := t.procs[pid]
		p.Comm, p.HWMKB = comm, max(p.HWMKB, hwm)
		sum += p.HWMKB
	}
	t.samples++
	t.peak = max(t.peak, sum)
}

func (t *tree) list() []proc {
	out := make([]proc, 0, len(t.procs))
	for _, p := range t.procs {
		if p.HWMKB > 0 {
			out = append(out, *p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// status reads pid's name and VmHWM (kB); ok is false when the process is
// gone or has no memory left (a zombie).
func status(pid int) (comm string, hwmKB int64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "", 0, false
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, found := bytes.CutPrefix(line, []byte("Name:")); found {
			comm = string(bytes.TrimSpace(v))
		}
		if v, found := bytes.CutPrefix(line, []byte("VmHWM:")); found {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			if err != nil {
				return "", 0, false
			}
			return comm, n, true
		}
	}
	return "", 0, false
}
