package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/procgroup"
	"github.com/atomic-agent/atomic/internal/reaper"
)

// process is one run of the CLI in its own process group, so that stopping
// it takes every descendant along (its sub-agents' shells included).
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	stderr *backend.Tail

	wmu sync.Mutex // one line at a time on stdin
	// wg counts the approvals in flight, which write to stdin.
	wg sync.WaitGroup

	exited   chan struct{} // closed once the process was reaped
	readDone chan struct{} // closed once stdout is drained and the end reported
	waitErr  error
	stopping atomic.Bool // set by stop: the end is ours, not a crash

	stopOnce sync.Once
}

func startProcess(bin string, args, env []string, dir string) (*process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, dir
	cmd.SysProcAttr = procgroup.Attr()
	reaper.Guard(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// A pipe of our own, not StdoutPipe: reading continues until every
	// holder of the write end is gone, and Wait does not close it under us.
	r, w, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	cmd.Stdout = w
	errs := &backend.Tail{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		stdin.Close()
		r.Close()
		w.Close()
		return nil, fmt.Errorf("claude-code backend: starting %s: %w", bin, err)
	}
	w.Close()
	p := &process{cmd: cmd, stdin: stdin, stdout: r, stderr: errs,
		exited: make(chan struct{}), readDone: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func (p *process) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return p.writeLine(b)
}

func (p *process) writeLine(b []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, err := p.stdin.Write(append(b, '\n'))
	return err
}

// stop ends the process and its group: stdin closed (the CLI's own way
// out), then SIGTERM, then SIGKILL, each after a short grace; the group is
// killed once more when the leader is gone, for descendants that outlived
// it. It returns once the process is reaped.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		p.stopping.Store(true)
		p.wmu.Lock()
		p.stdin.Close()
		p.wmu.Unlock()
		pgid := p.cmd.Process.Pid
		if !p.waitFor(exitGrace) {
			_ = procgroup.Signal(pgid, syscall.SIGTERM)
			if !p.waitFor(exitGrace) {
				_ = procgroup.Signal(pgid, syscall.SIGKILL)
			}
		}
		<-p.exited
		_ = procgroup.Signal(pgid, syscall.SIGKILL)
	})
	<-p.exited
}

func (p *process) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitError says how the process ended, with the end of its stderr.
func (p *process) exitError() error {
	select {
	case <-p.exited:
	default:
		return errors.New("claude is still running")
	}
	msg := "claude exited"
	if p.waitErr != nil {
		msg += " (" + p.waitErr.Error() + ")"
	}
	if s := p.stderr.String(); s != "" {
		msg += ": " + s
	}
	return errors.New(msg)
}
