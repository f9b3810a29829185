package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atomic-agent/atomic/internal/procgroup"
)

// stdioTransport runs a stdio server as a child Atomic reaps itself: its
// pipes are plain files (no copying goroutine that Wait would wait on
// while a grandchild holds one open), the end of its stderr is kept, and
// its exit status is known once exited is closed, without racing the SDK
// (whose CommandTransport reaps in a goroutine that may outlive Close).
type stdioTransport struct {
	cmd  *exec.Cmd
	tail stderrTail

	exited   chan struct{} // closed once the process is reaped
	status   *os.ProcessState
	tailDone chan struct{} // closed once its stderr reached EOF
}

func newStdioTransport(cmd *exec.Cmd) *stdioTransport {
	return &stdioTransport{cmd: cmd, exited: make(chan struct{}), tailDone: make(chan struct{})}
}

// Connect starts the process and speaks MCP over its stdin and stdout.
func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	var files []*os.File // every end, closed on failure
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		files = append(files, r, w)
		return r, w, err
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll(files)
		return nil, fmt.Errorf("pipes for the server: %w", err)
	}
	t.cmd.Stdin, t.cmd.Stdout, t.cmd.Stderr = inR, outW, errW
	if err := t.cmd.Start(); err != nil {
		closeAll(files)
		return nil, err
	}
	closeAll([]*os.File{inR, outW, errW}) // the child's ends
	go func() {
		_, _ = io.Copy(&t.tail, errR)
		_ = errR.Close()
		close(t.tailDone)
	}()
	go func() {
		_ = t.cmd.Wait()
		t.status = t.cmd.ProcessState
		close(t.exited)
	}()
	return (&sdk.IOTransport{Reader: outR, Writer: &serverStdin{File: inW, t: t}}).Connect(ctx)
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// serverStdin ends the server as the MCP spec's stdio shutdown says:
// close its input, give it a moment to exit, then end its process group.
type serverStdin struct {
	*os.File
	t    *stdioTransport
	once sync.Once
}

// terminateGrace is how long a server may take to exit once its input
// closed, before its process group is killed.
const terminateGrace = 500 * time.Millisecond

func (s *serverStdin) Close() error {
	err := s.File.Close()
	s.once.Do(func() {
		select {
		case <-s.t.exited:
		case <-time.After(terminateGrace):
			s.t.kill()
			<-s.t.exited // SIGKILL: the reaping follows at once
		}
	})
	return err
}

// end ends a stdio server's process group (nothing for another
// transport); the session's Close then reaps it at once.
func (t *stdioTransport) end() {
	if t != nil {
		t.kill()
	}
}

// kill ends the server's process group (what it spawned: npx, node).
func (t *stdioTransport) kill() {
	if t.cmd.Process != nil {
		_ = procgroup.Signal(t.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// exitStatus reports how the process ended, waiting up to wait for it to
// be reaped; ok is false while it runs.
func (t *stdioTransport) exitStatus(wait time.Duration) (st *os.ProcessState, ok bool) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-t.exited:
		// Its stderr ends with it, unless a grandchild holds it open.
		select {
		case <-t.tailDone:
		case <-timer.C:
		}
		return t.status, true
	case <-timer.C:
		return nil, false
	}
}
