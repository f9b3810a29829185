//go:build unix

package e2e

import "syscall"

// flushWrites writes the just-linked binaries to disk before any test
// times a run: their tens of MB of dirty pages were otherwise written back
// while the first benchmarks ran, and the filesystem's journal held up the
// session store's file creations (S1's exit after the answer read 8–9 ms
// in the first benchmark after a build, 3 ms otherwise).
func flushWrites() { syscall.Sync() }
