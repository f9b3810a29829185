//go:build linux

// Package procstat reads a process's state, its parent and whether it has
// exec'd from /proc/PID/stat: the one parser of that line for the reaper,
// the Copilot adapter and the bench's memory shim. It imports only the standard
// library, so the shim stays small.
package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// Read returns pid's state letter (R, S, Z, …) and its parent's pid.
func Read(pid int) (state byte, ppid int, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	return parse(b)
}

// parse reads a stat line: "pid (comm) state ppid ...". The command name
// may hold spaces and parentheses, so the fields start after the last ")".
func parse(b []byte) (state byte, ppid int, err error) {
	f, err := fields(b, 2)
	if err != nil {
		return 0, 0, err
	}
	ppid, err = strconv.Atoi(string(f[1]))
	return f[0][0], ppid, err
}

// fields are a stat line's fields after the command name, state first;
// at least n of them.
func fields(b []byte, n int) ([][]byte, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, errors.New("malformed stat")
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < n || len(f[0]) != 1 {
		return nil, errors.New("malformed stat")
	}
	return f, nil
}

// pfForkNoExec is the kernel's PF_FORKNOEXEC task flag: set on fork,
// cleared on exec.
const pfForkNoExec = 0x40

// Execd reports whether pid has exec'd since it was forked; ok is false
// when pid is gone or unreadable. One that has not still runs its
// parent's program in its parent's memory: shared outright between a
// vfork-style clone and its exec, copy-on-write after a plain fork.
func Execd(pid int) (execd, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, false
	}
	execd, err = parseExecd(b)
	return execd, err == nil
}

// parseExecd reads the flags, the stat line's ninth field.
func parseExecd(b []byte) (bool, error) {
	f, err := fields(b, 7)
	if err != nil {
		return false, err
	}
	flags, err := strconv.ParseUint(string(f[6]), 10, 64)
	if err != nil {
		return false, fmt.Errorf("stat flags %q: %w", f[6], err)
	}
	return flags&pfForkNoExec == 0, nil
}

// Parent is pid's parent pid, 0 when pid is gone or unreadable.
func Parent(pid int) int {
	_, ppid, err := Read(pid)
	if err != nil {
		return 0
	}
	return ppid
}
