package mcp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tailBytes bounds what is kept of a stdio server's stderr: enough for
// the lines that say why it stopped (a stack trace's head, npm's error).
const tailBytes = 8 << 10

// tailLines is how many of its last stderr lines a failed start reports.
const tailLines = 5

// stderrTail keeps the end of a stdio server's stderr, so a server that
// exits while starting is reported with what it said, not as an EOF.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// last returns the last n non-blank lines.
func (t *stderrTail) last(n int) []string {
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, "\r \t"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// startFailure explains a stdio server's failed start: its exit status
// when it has exited and its last stderr lines, in place of the
// handshake's own error when that is only the closed pipe's EOF.
func startFailure(err error, t *stdioTransport) error {
	if t == nil {
		return err
	}
	// A closed pipe means the server is exiting: give the reaping a moment.
	wait := time.Duration(0)
	if isEOF(err) {
		wait = time.Second
	}
	var why string
	if st, ok := t.exitStatus(wait); ok && st != nil {
		why = "exited during start with " + exitStatus(st)
	}
	lines := t.tail.last(tailLines)
	if why == "" && len(lines) == 0 {
		return err
	}
	msg := why
	if len(lines) > 0 {
		if msg != "" {
			msg += "; "
		}
		msg += "stderr:\n  " + strings.Join(lines, "\n  ")
	}
	if why != "" && isEOF(err) {
		return errors.New(msg) // the EOF says only that the pipe closed
	}
	return fmt.Errorf("%s; %w", msg, err)
}

func exitStatus(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return fmt.Sprintf("status %d", st.ExitCode())
}

// isEOF reports the errors a handshake ends with when the server's pipe
// closed under it (the SDK wraps io.EOF in its own words).
func isEOF(err error) bool {
	if errors.Is(err, io.EOF) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "EOF") || strings.Contains(s, "client is closing") || strings.Contains(s, "connection closed")
}
