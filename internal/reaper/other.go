//go:build !linux

package reaper

import (
	"os/exec"
	"time"
)

// Tree is a no-op outside Linux: there is no portable way to adopt orphans.
type Tree struct{}

// Adopt returns a Tree that does nothing on this system.
func Adopt() *Tree { return &Tree{} }

// Close does nothing on this system.
func (*Tree) Close(grace time.Duration) {}

// Enable does nothing on this system: there is no watchdog.
func Enable() {}

// Guard does nothing on this system.
func Guard(cmd *exec.Cmd) {}

// RunWatchdog returns at once on this system: there is no watchdog.
func RunWatchdog() {}
