//go:build linux

// Package procstat reads a process's state and parent from
// /proc/PID/stat: the one parser of that line for the reaper, the Copilot
// adapter and the bench's memory shim. It imports only the standard
// library, so the shim stays small.
package procstat

import (
	"bytes"
	"errors"
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
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("malformed stat")
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 || len(f[0]) != 1 {
		return 0, 0, errors.New("malformed stat")
	}
	ppid, err = strconv.Atoi(string(f[1]))
	return f[0][0], ppid, err
}

// Parent is pid's parent pid, 0 when pid is gone or unreadable.
func Parent(pid int) int {
	_, ppid, err := Read(pid)
	if err != nil {
		return 0
	}
	return ppid
}
