package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// Hidden, for measuring: ATOMIC_CPUPROFILE=file writes a CPU profile of
// the whole run, ATOMIC_MEMPROFILE=file a heap profile (every allocation
// of the run, in use at exit) when the process ends normally, and
// file.peak the heap profile taken when the heap was largest (what was in
// use then). Read them with `go tool pprof`.
const (
	envCPUProfile = "ATOMIC_CPUPROFILE"
	envMemProfile = "ATOMIC_MEMPROFILE"
)

// startProfiles starts what the environment asks for and returns the
// function that writes the profiles; errors go to stderr, never stop a run.
func startProfiles() (stop func()) {
	cpu, mem := os.Getenv(envCPUProfile), os.Getenv(envMemProfile)
	// Children (workers, the watchdog) must not overwrite this process's
	// files.
	os.Unsetenv(envCPUProfile)
	os.Unsetenv(envMemProfile)
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "atomic: %s: %v\n", envCPUProfile, err)
		} else {
			cpuFile = f
		}
	}
	var peak *peakHeap
	if mem != "" {
		peak = watchPeak()
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem != "" {
			if err := writeHeapProfile(mem); err != nil {
				fmt.Fprintf(os.Stderr, "atomic: %s: %v\n", envMemProfile, err)
			}
			if err := peak.write(mem + ".peak"); err != nil {
				fmt.Fprintf(os.Stderr, "atomic: %s: %v\n", envMemProfile, err)
			}
		}
	}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating the heap profile: %w", err)
	}
	defer f.Close()
	runtime.GC() // in-use figures as of now
	if err := pprof.WriteHeapProfile(f); err != nil {
		return fmt.Errorf("writing the heap profile: %w", err)
	}
	return nil
}

// peakHeap keeps the heap profile of the moment the heap was largest,
// sampled every 20 ms.
type peakHeap struct {
	mu   sync.Mutex
	max  uint64
	prof bytes.Buffer
	done chan struct{}
}

func watchPeak() *peakHeap {
	p := &peakHeap{done: make(chan struct{})}
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
			}
			runtime.ReadMemStats(&ms)
			p.mu.Lock()
			if ms.HeapInuse > p.max+p.max/20 {
				p.max = ms.HeapInuse
				p.prof.Reset()
				runtime.GC() // the profile's in-use figures are as of the last GC
				_ = pprof.WriteHeapProfile(&p.prof)
			}
			p.mu.Unlock()
		}
	}()
	return p
}

func (p *peakHeap) write(path string) error {
	close(p.done)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prof.Len() == 0 { // a run shorter than one sample
		runtime.GC()
		_ = pprof.WriteHeapProfile(&p.prof)
	}
	if err := os.WriteFile(path, p.prof.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the peak heap profile: %w", err)
	}
	return nil
}
