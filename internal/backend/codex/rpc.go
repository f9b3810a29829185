package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// errClosed is returned for calls on a connection whose server has gone.
var errClosed = errors.New("codex app-server closed its output")

// conn is the client side of the app-server's JSON-RPC: requests with
// numeric ids, their responses routed back by id, one JSON object per line.
type conn struct {
	wmu sync.Mutex
	w   io.Writer

	mu      sync.Mutex
	next    int64
	pending map[string]chan inbound
	done    chan struct{} // closed when the reader stops
	err     error         // why it stopped
}

func newConn(w io.Writer) *conn {
	return &conn{w: w, pending: map[string]chan inbound{}, done: make(chan struct{})}
}

// send writes one message as a line.
func (c *conn) send(m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("codex: encode %s: %w", m.Method, err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("codex: write %s: %w", firstNonEmpty(m.Method, "response"), err)
	}
	return nil
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	p, err := marshalParams(params)
	if err != nil {
		return err
	}
	return c.send(message{Method: method, Params: p})
}

// reply answers a server request.
func (c *conn) reply(id json.RawMessage, result any, rpcErr *rpcError) error {
	m := message{ID: id, Error: rpcErr}
	if rpcErr == nil {
		b, err := json.Marshal(result)
		if err != nil {
			return fmt.Errorf("codex: encode reply: %w", err)
		}
		m.Result = b
	}
	return c.send(m)
}

// call sends a request and waits for its response (or ctx, or the server's
// end).
func (c *conn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	ch := make(chan inbound, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("codex: %s: %w", method, c.err)
	}
	c.next++
	id := strconv.FormatInt(c.next, 10)
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	if err := c.send(message{ID: json.RawMessage(id), Method: method, Params: p}); err != nil {
		return nil, err
	}
	var m inbound
	select {
	case m = <-ch:
	case <-ctx.Done():
		// An answer that came as ctx ended is still the answer: the
		// request took effect (a turn/start whose turn runs).
		select {
		case m = <-ch:
		default:
			return nil, fmt.Errorf("codex: %s: %w", method, ctx.Err())
		}
	case <-c.done:
		return nil, fmt.Errorf("codex: %s: %w", method, c.failure())
	}
	if m.Error != nil {
		return nil, fmt.Errorf("codex: %s: %w", method, m.Error)
	}
	return m.Result, nil
}

func (c *conn) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// read reads r until it ends, routing responses to their calls and every
// other message to handle. A line that is not JSON is skipped (the server
// logs to stderr, but a stray line must not end the session).
func (c *conn) read(r io.Reader, handle func(inbound)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	for {
		var line []byte
		line, err = br.ReadBytes('\n')
		if len(line) > 0 {
			if m, ok := decodeLine(line); ok {
				if m.isResponse() {
					c.mu.Lock()
					ch := c.pending[string(m.ID)]
					c.mu.Unlock()
					if ch != nil {
						select {
						case ch <- m:
						default: // a second answer to one id: the first counts
						}
					}
				} else if m.Method != "" {
					handle(m)
				}
			}
		}
		if err != nil {
			break
		}
	}
	if errors.Is(err, io.EOF) {
		err = errClosed
	}
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.done)
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("codex: encode params: %w", err)
	}
	return b, nil
}
