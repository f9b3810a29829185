// Package helperbin finds the programs that ship beside atomic
// (atomic-openai, atomic-nats): each holds a large dependency that atomic
// itself does not link, so that a process pays for it only when it is used.
package helperbin

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Find returns the path of the program name: beside this program (where
// `go install ./cmd/...` puts them all; executable is os.Executable), else
// on PATH (lookPath is exec.LookPath, which refuses a relative PATH entry).
// Its error names the program, where it was looked for and how to install
// it.
func Find(name string, executable func() (string, error), lookPath func(string) (string, error)) (string, error) {
	file := name
	if runtime.GOOS == "windows" {
		file += ".exe"
	}
	self, err := executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		beside := filepath.Join(filepath.Dir(self), file)
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	if p, err := lookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("the program %s, found neither beside %s nor on PATH: "+
		"install it with atomic (go install ./cmd/... in Atomic's repository), or build it beside atomic (go build -o DIR ./cmd/%s)", file, self, name)
}
