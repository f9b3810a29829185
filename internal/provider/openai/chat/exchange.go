package chat

import (
	"bytes"
	"io"
	"net/http"

	"github.com/openai/openai-go/v3/option"
)

// maxErrorBody bounds how much of an error response is kept.
const maxErrorBody = 64 << 10

// exchange watches one attempt's HTTP exchange from inside the SDK's
// middleware chain: the status, headers and body of an error response
// (servers other than OpenAI shape their error bodies in ways the SDK does
// not parse), and whether the event stream reached "data: [DONE]", which
// is the only way to tell a finished stream from one whose connection was
// closed cleanly part way. It is used by one goroutine at a time: the
// middleware runs inside the request, the body is read by the stream's
// consumer afterwards.
type exchange struct {
	status int
	header http.Header
	body   []byte // error responses only
	watch  *doneWatcher
}

// option installs the exchange's middleware on a request.
func (x *exchange) option() option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err != nil || res == nil {
			return res, err
		}
		x.status, x.header = res.StatusCode, res.Header
		if res.StatusCode >= 400 {
			body, rerr := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
			_ = res.Body.Close()
			x.body = body
			res.Body = io.NopCloser(bytes.NewReader(body))
			if rerr != nil {
				return res, rerr
			}
			return res, nil
		}
		x.watch = &doneWatcher{ReadCloser: res.Body}
		res.Body = x.watch
		return res, nil
	})
}

// done reports whether the stream's "[DONE]" line was read.
func (x *exchange) done() bool { return x.watch != nil && x.watch.done }

// doneWatcher passes a server-sent event stream through and notes a
// "data: [DONE]" line.
type doneWatcher struct {
	io.ReadCloser
	line []byte // the current line's start, up to doneLineMax bytes
	long bool   // the current line is longer than that
	done bool
}

const doneLineMax = 32

func (w *doneWatcher) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	for _, c := range p[:n] {
		if c == '\n' || c == '\r' {
			w.endLine()
			continue
		}
		if len(w.line) < doneLineMax {
			w.line = append(w.line, c)
		} else {
			w.long = true
		}
	}
	if err == io.EOF {
		w.endLine()
	}
	return n, err
}

func (w *doneWatcher) endLine() {
	if !w.long {
		l := bytes.TrimSpace(w.line)
		if bytes.HasPrefix(l, []byte("data:")) && bytes.Equal(bytes.TrimSpace(l[len("data:"):]), []byte("[DONE]")) {
			w.done = true
		}
	}
	w.line, w.long = w.line[:0], false
}
