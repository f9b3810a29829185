package opencode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/procgroup"
	"github.com/atomic-agent/atomic/internal/reaper"
)

// Bounds on the server's life.
const (
	startTimeout = 60 * time.Second // process start until it listens
	stopGrace    = 2 * time.Second  // SIGTERM → SIGKILL of the process group
)

// server is one `opencode serve` process in its own process group and the
// HTTP client that talks to it.
type server struct {
	cmd    *exec.Cmd
	url    string
	http   *http.Client
	stderr *backend.Tail
	exited chan struct{} // closed when the process has been waited for
}

// freePort asks the kernel for a loopback port nobody listens on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startServer starts bin serve on a free loopback port in dir and waits
// until it says it listens.
func startServer(ctx context.Context, bin, dir string, env []string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("opencode: a free port: %w", err)
	}
	cmd := exec.Command(bin, "serve", "--hostname", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = procgroup.Attr()
	cmd.WaitDelay = stopGrace
	reaper.Guard(cmd)
	s := &server{cmd: cmd, stderr: &backend.Tail{Drop: func(l string) bool { return strings.Contains(l, "OPENCODE_SERVER_PASSWORD") }}, exited: make(chan struct{}), http: &http.Client{}}
	cmd.Stderr = s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("opencode: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("opencode: start %s serve: %w", bin, err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), "listening on "); ok {
				select {
				case ready <- strings.TrimSpace(url):
				default:
				}
			}
		}
		_ = cmd.Wait()
		close(s.exited)
	}()
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	select {
	case s.url = <-ready:
		return s, nil
	case <-s.exited:
		return nil, s.wrap(errors.New("opencode: serve exited before listening"))
	case <-ctx.Done():
		s.stop()
		return nil, s.wrap(fmt.Errorf("opencode: serve did not listen: %w", ctx.Err()))
	}
}

// stop ends the process group: SIGTERM, then SIGKILL after a grace, and
// waits for the process.
func (s *server) stop() {
	pg := s.cmd.Process.Pid
	_ = procgroup.Signal(pg, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(stopGrace):
	}
	_ = procgroup.Signal(pg, syscall.SIGKILL) // the server and whatever it started
	<-s.exited
}

// post sends body as JSON to path; out, when not nil, receives the answer.
func (s *server) post(ctx context.Context, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	return s.do(ctx, http.MethodPost, path, r, out)
}

// get reads path's JSON answer into out.
func (s *server) get(ctx context.Context, path string, out any) error {
	return s.do(ctx, http.MethodGet, path, nil, out)
}

// do sends one request; out, when not nil, receives the JSON answer.
func (s *server) do(ctx context.Context, method, path string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, body)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := s.http.Do(req)
	if err != nil {
		return s.wrap(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, res.Status, strings.TrimSpace(string(b)))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: answer %q: %w", method, path, b, err)
		}
	}
	return nil
}

// events reads GET /event until ctx ends or the server closes it, calling
// fn for each event; connected is closed once the stream is open.
func (s *server) events(ctx context.Context, connected chan<- struct{}, fn func(Event)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/event", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	res, err := s.http.Do(req)
	if err != nil {
		return s.wrap(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("opencode: GET /event: %s", res.Status)
	}
	close(connected)
	return ReadSSE(res.Body, fn)
}

// ReadSSE reads an event stream: each event's `data:` lines joined are one
// JSON event.
func ReadSSE(r io.Reader, fn func(Event)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	var data []string
	flush := func() {
		if len(data) == 0 {
			return
		}
		var e Event
		if json.Unmarshal([]byte(strings.Join(data, "\n")), &e) == nil && e.Type != "" {
			fn(e)
		}
		data = data[:0]
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	return sc.Err()
}

// wrap adds what the server said on stderr to an error.
func (s *server) wrap(err error) error {
	if t := s.stderr.String(); t != "" {
		return fmt.Errorf("%w (opencode stderr: %s)", err, t)
	}
	return err
}
