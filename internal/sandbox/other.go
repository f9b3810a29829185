//go:build !linux

package sandbox

import (
	"os/exec"
	"runtime"
)

type kernel struct{}

func supported() error {
	return &UnsupportedError{Reason: "it needs Linux (Landlock), this is " + runtime.GOOS}
}

func newKernel([]rule, bool, []string, []shield) (*kernel, error) { return nil, supported() }
func (*kernel) close()                                            {}
func (*kernel) start(cmd *exec.Cmd, _ []string) error             { return cmd.Start() }
func (*kernel) shielded() bool                                    { return false }

var mayShield = func() bool { return false }
