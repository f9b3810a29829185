package hosted

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/atomic-agent/atomic/internal/provider"
)

// Backend is what a program serves: one attempt at a request (no
// retries), and the models its service lists.
type Backend interface {
	Attempt(ctx context.Context, req provider.Request, on func(provider.Chunk)) (*provider.Response, error)
	ListModels(ctx context.Context) ([]string, error)
}

// Main is a serving program's main: it serves standard input and output
// with the Backend open builds from the settings, and returns the exit
// code. Run from a terminal, it says what it is instead.
func Main(open func(settings json.RawMessage) (Backend, error)) int {
	name := filepath.Base(os.Args[0])
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintf(os.Stderr, "%s serves one of Atomic's model providers to atomic, over its standard input and output; atomic runs it.\n", name)
		return 2
	}
	if err := Serve(context.Background(), os.Stdin, os.Stdout, open); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}

// Serve reads the settings, then calls, from in and writes the replies to
// out until in ends; every call runs in its own goroutine, and all have
// ended when Serve returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, open func(settings json.RawMessage) (Backend, error)) error {
	dec := json.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	w := &replies{w: bufio.NewWriter(out)}
	w.enc = json.NewEncoder(w.w)
	var settings json.RawMessage
	if err := dec.Decode(&settings); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return fmt.Errorf("reading the settings: %w", err)
	}
	b, err := open(settings)
	if err != nil {
		w.send(reply{Error: Encode(err)})
		return err
	}
	w.send(reply{Ready: true})

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var mu sync.Mutex
	running := map[int64]context.CancelFunc{}
	for {
		var c call
		if err := dec.Decode(&c); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading a call: %w", err)
		}
		switch c.Op {
		case opCancel:
			mu.Lock()
			if stop := running[c.ID]; stop != nil {
				stop()
			}
			mu.Unlock()
			continue
		case opStream, opModels:
		default:
			w.send(reply{ID: c.ID, Error: Encode(fmt.Errorf("unknown operation %q", c.Op))})
			continue
		}
		if c.Op == opStream && c.Request == nil {
			w.send(reply{ID: c.ID, Error: Encode(errors.New("a stream call without a request"))})
			continue
		}
		cctx, stop := context.WithCancel(ctx)
		mu.Lock()
		running[c.ID] = stop
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				mu.Lock()
				delete(running, c.ID)
				mu.Unlock()
				stop()
			}()
			w.send(run(cctx, b, c, func(ch provider.Chunk) {
				w.send(reply{ID: c.ID, Chunk: &chunk{Kind: ch.Kind, Text: ch.Text, ToolCall: ch.ToolCall}})
			}))
		}()
	}
}

// run carries out call c and returns its final reply.
func run(ctx context.Context, b Backend, c call, on func(provider.Chunk)) reply {
	if c.Op == opModels {
		ids, err := b.ListModels(ctx)
		if err != nil {
			return reply{ID: c.ID, Error: Encode(err)}
		}
		return reply{ID: c.ID, Models: ids, Done: true}
	}
	resp, err := b.Attempt(ctx, *c.Request, on)
	if err != nil {
		return reply{ID: c.ID, Error: Encode(err)}
	}
	return reply{ID: c.ID, Response: resp}
}

// replies writes replies one whole line at a time, each flushed at once:
// a chunk is worth sending the moment it comes.
type replies struct {
	mu  sync.Mutex
	w   *bufio.Writer
	enc *json.Encoder
}

func (r *replies) send(rep reply) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A write fails only when atomic is gone; its input's end then ends
	// the program.
	if r.enc.Encode(rep) == nil {
		_ = r.w.Flush()
	}
}
