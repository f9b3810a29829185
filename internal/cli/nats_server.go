package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// natsServerName is the program that holds `atomic nats`'s embedded
// server (cmd/atomic-nats). Linked into atomic, nats-server cost every
// Atomic process ~5 MB of memory and the binary 13 MB, for a command most
// runs never use.
const natsServerName = "atomic-nats"

// runNATS runs atomic-nats with args in this process's place.
func runNATS(ctx context.Context, args []string, ios IOStreams) int {
	path, err := natsServer(os.Executable, exec.LookPath)
	if err != nil {
		fmt.Fprintf(ios.Err, "atomic nats: %v\n", err)
		return 1
	}
	return execNATS(ctx, path, args, ios)
}

// natsServer finds atomic-nats: beside this program (where
// `go install ./cmd/...` puts both), else on PATH.
func natsServer(executable func() (string, error), lookPath func(string) (string, error)) (string, error) {
	name := natsServerName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	self, err := executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		beside := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	if p, err := lookPath(natsServerName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("the NATS server is the program %s, found neither beside %s nor on PATH: "+
		"install it with atomic (go install ./cmd/... in Atomic's repository), or run it there with go run ./cmd/atomic-nats", name, self)
}
