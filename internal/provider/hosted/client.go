package hosted

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/procgroup"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/reaper"
	"github.com/atomic-agent/atomic/internal/tailbuf"
)

// Command is the program a Client runs.
type Command struct {
	// Provider names the provider in errors ("openai").
	Provider string
	// Argv is the program and its arguments.
	Argv []string
	// Env is its whole environment (nil: an empty one, never this
	// process's).
	Env []string
	// Settings are the first line it reads (JSON).
	Settings []byte
}

// Client runs the program on its first call and keeps it for the later
// ones, which may overlap; a program that ended is started again by the
// next call. It is safe for concurrent use.
type Client struct {
	cmd    Command
	mu     sync.Mutex
	proc   *proc
	closed bool
}

// NewClient returns a Client of cmd; nothing starts yet.
func NewClient(cmd Command) *Client { return &Client{cmd: cmd} }

// stopGrace is how long Close waits for the program to end by itself
// once its input is closed, before it is killed.
const stopGrace = 2 * time.Second

// Close ends the program, if it runs, and refuses later calls.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	p := c.proc
	c.proc = nil
	c.mu.Unlock()
	if p != nil {
		p.stop()
	}
	return nil
}

// Attempt makes one attempt at req in the program: its chunks go to on as
// they come. A program that ends during the attempt makes it a
// provider.StreamError (retried unless a tool call had come, like a cut
// stream); one that cannot start, an error that says why.
func (c *Client) Attempt(ctx context.Context, req provider.Request, on func(provider.Chunk)) (*provider.Response, error) {
	toolSeen := false
	rep, err := c.call(ctx, call{Op: opStream, Request: &req}, func(ch *chunk) {
		if ch.Kind == provider.ChunkToolCall {
			toolSeen = true
		}
		on(provider.Chunk{Kind: ch.Kind, Text: ch.Text, ToolCall: ch.ToolCall})
	})
	if err != nil {
		var gone *goneError
		if errors.As(err, &gone) {
			return nil, &provider.StreamError{Provider: c.cmd.Provider, AfterToolCall: toolSeen, Err: err}
		}
		return nil, err
	}
	return rep.Response, nil
}

// ListModels asks the program for the models its service lists.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	rep, err := c.call(ctx, call{Op: opModels}, nil)
	if err != nil {
		return nil, err
	}
	return rep.Models, nil
}

// call sends cl and waits for its final reply, handing its chunks to on.
// The first call goes out behind the settings, without waiting for the
// program to take them: it starts while the program does.
func (c *Client) call(ctx context.Context, cl call, on func(*chunk)) (*reply, error) {
	p, err := c.running()
	if err != nil {
		return nil, err
	}
	box := p.open(&cl)
	defer p.forget(cl.ID)
	// A send fails only when the program's input broke: it is ending,
	// which the loop sees.
	_ = p.send(cl)
	for {
		select {
		case <-ctx.Done():
			_ = p.send(call{ID: cl.ID, Op: opCancel})
			return nil, ctx.Err()
		case <-box.signal:
		case <-p.done:
		}
		for _, r := range box.take() {
			switch {
			case r.Error != nil:
				return nil, r.Error.Decode()
			case r.final():
				return &r, nil
			case r.Chunk != nil && on != nil:
				on(r.Chunk)
			}
		}
		select {
		case <-p.done:
			if box.pending() {
				continue
			}
			if p.failed != nil { // it refused the settings, or never started
				return nil, p.failed
			}
			return nil, &goneError{program: c.cmd.Argv[0], why: p.why()}
		default:
		}
	}
}

// running returns the program, started if it is not running.
func (c *Client) running() (*proc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("%s: the provider is closed", c.cmd.Provider)
	}
	if c.proc != nil {
		select {
		case <-c.proc.done: // ended and collected: start another
			c.proc = nil
		default:
			return c.proc, nil
		}
	}
	p, err := start(c.cmd)
	if err != nil {
		return nil, err
	}
	c.proc = p
	return p, nil
}

// goneError is a program that ended while a call waited on it.
type goneError struct{ program, why string }

func (e *goneError) Error() string { return fmt.Sprintf("%s ended: %s", e.program, e.why) }

// proc is one run of the program.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tailbuf.Tail
	wmu    sync.Mutex // one call's line at a time
	enc    *json.Encoder

	mu    sync.Mutex
	next  int64
	calls map[int64]*mailbox

	done    chan struct{} // closed when its output ended and it was collected
	failed  error         // why it refused the settings or never took them; set before done
	exitMsg string        // how it ended; set before done
}

// start runs the program: its own process group (a terminal's ^C is
// Atomic's to handle), the settings on its input. It carries Atomic's
// reaper mark, but does not start the watchdog: the program ends when its
// input does, which the kernel closes however Atomic ends (SIGKILL
// included), so it needs no second process to end it.
func start(c Command) (*proc, error) {
	if len(c.Argv) == 0 {
		return nil, fmt.Errorf("%s: no program to run", c.Provider)
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Env = append(make([]string, 0, len(c.Env)+1), c.Env...) // not nil: nil would be all of ours
	cmd.SysProcAttr = procgroup.Attr()
	p := &proc{cmd: cmd, stderr: &tailbuf.Tail{}, calls: map[int64]*mailbox{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: starting %s: %w", c.Provider, c.Argv[0], err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: starting %s: %w", c.Provider, c.Argv[0], err)
	}
	if tree := os.Getenv(reaper.EnvTree); tree != "" {
		cmd.Env = append(cmd.Env, reaper.EnvTree+"="+tree)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: starting %s: %w", c.Provider, c.Argv[0], err)
	}
	p.stdin, p.enc = stdin, json.NewEncoder(stdin)
	go p.read(stdout, c.Provider)
	p.wmu.Lock()
	_, _ = stdin.Write(append(append([]byte(nil), c.Settings...), '\n'))
	p.wmu.Unlock()
	return p, nil
}

// read hands each reply to its call until the output ends, then collects
// the program.
func (p *proc) read(out io.Reader, prov string) {
	dec := json.NewDecoder(bufio.NewReaderSize(out, 64<<10))
	ready := false
	var ended error
	for {
		var r reply
		if err := dec.Decode(&r); err != nil {
			if !errors.Is(err, io.EOF) {
				ended = fmt.Errorf("unreadable output: %w", err)
			}
			break
		}
		if r.ID == 0 {
			if r.Error != nil && !ready {
				p.failed = r.Error.Decode()
			}
			ready = ready || r.Ready
			continue
		}
		p.mu.Lock()
		box := p.calls[r.ID]
		p.mu.Unlock()
		if box != nil {
			box.put(r)
		}
	}
	// Unblock the program if it still writes, then collect it.
	_ = p.stdin.Close()
	werr := p.cmd.Wait()
	msg := "its output ended"
	switch {
	case ended != nil:
		msg = ended.Error()
	case werr != nil:
		msg = werr.Error()
	case p.cmd.ProcessState != nil:
		msg = p.cmd.ProcessState.String()
	}
	if s := p.stderr.String(); s != "" {
		msg += ": " + s
	}
	if p.failed == nil && !ready {
		p.failed = fmt.Errorf("%s: %s did not start: %s", prov, p.cmd.Path, msg)
	}
	p.exitMsg = msg
	close(p.done)
}

// why says how the program ended (after done).
func (p *proc) why() string { return p.exitMsg }

// open gives cl an id and a mailbox for its replies.
func (p *proc) open(cl *call) *mailbox {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	cl.ID = p.next
	box := &mailbox{signal: make(chan struct{}, 1)}
	p.calls[cl.ID] = box
	return box
}

// forget drops call id's mailbox: later replies to it are dropped.
func (p *proc) forget(id int64) {
	p.mu.Lock()
	delete(p.calls, id)
	p.mu.Unlock()
}

// send writes cl as one line.
func (p *proc) send(cl call) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return p.enc.Encode(cl)
}

// stop closes the program's input, which ends it, and kills it if it
// has not ended within stopGrace; it returns once the program is collected.
func (p *proc) stop() {
	p.wmu.Lock()
	_ = p.stdin.Close()
	p.wmu.Unlock()
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-p.done:
		return
	case <-t.C:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// mailbox holds a call's replies until its caller takes them: the reader
// never waits on a slow caller, so one call cannot hold up the others.
type mailbox struct {
	mu     sync.Mutex
	q      []reply
	signal chan struct{}
}

func (m *mailbox) put(r reply) {
	m.mu.Lock()
	m.q = append(m.q, r)
	m.mu.Unlock()
	select {
	case m.signal <- struct{}{}:
	default:
	}
}

func (m *mailbox) take() []reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.q
	m.q = nil
	return q
}

func (m *mailbox) pending() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.q) > 0
}
