package acp

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// DefaultMaxMessage is the largest message (one line of JSON) atomic acp
// takes from the client: 128 MiB. The read tool takes files of up to
// 10 MiB whole (bigger ones in parts), and a file's text grows when it is
// JSON-escaped (up to six bytes for one control byte), so even a 10 MiB
// file of nothing but escapes fits, as does a prompt embedding several
// large files. A longer message is answered with an error; the connection
// stays up.
const DefaultMaxMessage = 128 << 20

// sdkMaxLine is the longest line acp-go-sdk (v0.13.0) reads: its
// connection scans lines with a bufio.Scanner capped at 10 MiB, fixed,
// and a longer line ends the connection. Lines above it are shrunk (see
// shrink) or answered here.
const sdkMaxLine = 10<<20 - 1<<10

// largeString is the size above which a JSON string literal of a long
// line is held out of band.
const largeString = 64 << 10

// headSize is how much of an over-long line is kept to find its id and
// method.
const headSize = 64 << 10

// lockedWriter makes each Write one unit, so the answers written here do
// not interleave with the SDK's (which writes one message per Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// largeStrings holds the string literals taken out of lines too long for
// the SDK, until expand puts them back into the request or response they
// came in.
type largeStrings struct {
	nonce string // makes tokens unguessable: a client cannot name another's string
	max   int    // bytes held at most

	mu   sync.Mutex
	next int
	held map[string][]byte // token → the JSON string literal, quotes included
	size int
}

func newLargeStrings(max int) *largeStrings {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return &largeStrings{nonce: hex.EncodeToString(b), max: max, held: map[string][]byte{}}
}

const tokenPrefix = "atomic-large-string:"

// shrink returns line with every string literal over largeString replaced
// by a token (a short string), and the literals by token. It does not
// keep them: hold does, once the message is known to be one expand serves.
func (l *largeStrings) shrink(line []byte) ([]byte, map[string][]byte, error) {
	var out []byte
	taken := map[string][]byte{}
	last := 0
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) {
			return nil, nil, errors.New("unterminated string")
		}
		if j+1-i > largeString {
			l.mu.Lock()
			tok := tokenPrefix + l.nonce + ":" + strconv.Itoa(l.next)
			l.next++
			l.mu.Unlock()
			out = append(out, line[last:i]...)
			out = append(out, '"')
			out = append(out, tok...)
			out = append(out, '"')
			taken[tok] = line[i : j+1]
			last = j + 1
		}
		i = j
	}
	return append(out, line[last:]...), taken, nil
}

// hold keeps taken, unless that would hold more than max bytes in all.
func (l *largeStrings) hold(taken map[string][]byte) bool {
	n := 0
	for _, v := range taken {
		n += len(v)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size+n > l.max {
		return false
	}
	for k, v := range taken {
		l.held[k] = v
	}
	l.size += n
	return true
}

// expand puts the strings held for v's tokens back into v and forgets
// them. Only session/prompt requests and file reads carry them.
func expand[T any](l *largeStrings, v *T) error {
	l.mu.Lock()
	empty := len(l.held) == 0
	l.mu.Unlock()
	if empty {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	marker := []byte(`"` + tokenPrefix + l.nonce + ":")
	if !bytes.Contains(data, marker) {
		return nil
	}
	var out []byte
	for {
		i := bytes.Index(data, marker)
		if i < 0 {
			break
		}
		end := bytes.IndexByte(data[i+1:], '"')
		if end < 0 {
			return errors.New("a held string's token is cut")
		}
		tok := string(data[i+1 : i+1+end])
		l.mu.Lock()
		lit, ok := l.held[tok]
		delete(l.held, tok)
		l.size -= len(lit)
		l.mu.Unlock()
		if !ok {
			return fmt.Errorf("a large string of this message is no longer held (%s)", tok)
		}
		out = append(out, data[:i]...)
		out = append(out, lit...)
		data = data[i+1+end+1:]
	}
	out = append(out, data...)
	var fresh T
	if err := json.Unmarshal(out, &fresh); err != nil {
		return err
	}
	*v = fresh
	return nil
}

// lineReader stands between the client and the SDK: lines up to
// sdkMaxLine pass as they are; longer ones up to max are shrunk when they
// are a session/prompt or an answer to one of Atomic's requests (a file
// read); anything else too long is answered with a JSON-RPC error (a
// request: to the client, with its id, or null when the id cannot be
// found; an answer: to the SDK, so the request waiting for it fails) and
// the connection goes on.
type lineReader struct {
	in      *bufio.Reader
	max     int
	large   *largeStrings
	out     io.Writer // to the client
	pending []byte
}

func newLineReader(in io.Reader, out io.Writer, max int, large *largeStrings) *lineReader {
	return &lineReader{in: bufio.NewReaderSize(in, 64<<10), max: max, large: large, out: out}
}

func (r *lineReader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		line, err := r.next()
		if err != nil {
			return 0, err
		}
		r.pending = line
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// next returns the next line for the SDK, newline included.
func (r *lineReader) next() ([]byte, error) {
	for {
		line, size, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if size > r.max {
			if fed := r.tooLong(line, size); fed != nil {
				return fed, nil
			}
			continue
		}
		if len(line) <= sdkMaxLine {
			return line, nil
		}
		small, taken, err := r.large.shrink(line)
		if err == nil && len(small) <= sdkMaxLine {
			id, method, _ := messageHead(small)
			if (method == "session/prompt" || method == "" && id != nil) && r.large.hold(taken) {
				return small, nil
			}
		}
		if fed := r.tooLong(line, size); fed != nil {
			return fed, nil
		}
	}
}

// readLine reads one line: whole when it is at most max bytes, else its
// head only; size is its length.
func (r *lineReader) readLine() ([]byte, int, error) {
	var buf []byte
	size := 0
	for {
		chunk, err := r.in.ReadSlice('\n')
		size += len(chunk)
		if size <= r.max {
			buf = append(buf, chunk...)
		} else if len(buf) > headSize {
			buf = append([]byte(nil), buf[:headSize]...) // the head is all an over-long line needs
		} else if len(buf) < headSize {
			buf = append(buf, chunk[:min(len(chunk), headSize-len(buf))]...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && size > 0:
			return append(buf, '\n'), size + 1, nil
		case err != nil:
			return nil, 0, err
		}
		return buf, size, nil
	}
}

// tooLong answers a message that cannot be passed on; it returns what the
// SDK is to read instead (nil: nothing).
func (r *lineReader) tooLong(head []byte, size int) []byte {
	id, method, parsed := messageHead(head)
	what := fmt.Sprintf("a message of %d bytes is over atomic acp's limit", size)
	if size <= r.max {
		what = fmt.Sprintf("a %s message of %d bytes is over the SDK's line limit of %d bytes (only session/prompt and answers may be longer, up to %d)", method, size, sdkMaxLine, r.max)
	} else {
		what += fmt.Sprintf(" of %d bytes", r.max)
	}
	data := map[string]any{"error": what, "size": size, "limit": r.max}
	switch {
	case method == "" && id != nil: // an answer to Atomic: the request waiting for it fails
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": sdk.NewInternalError(data)})
		return append(msg, '\n')
	case method != "" && id == nil && parsed: // a notification gets no answer
		return nil
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": sdk.NewInvalidRequest(data)})
	_, _ = r.out.Write(append(msg, '\n'))
	return nil
}

// messageHead finds a JSON-RPC message's id (a number or string) and
// method in the start of its line, which may be cut anywhere; parsed says
// the whole top level was read, so an id missing from it is really absent.
func messageHead(b []byte) (id json.RawMessage, method string, parsed bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, "", false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return id, method, false
		}
		switch k {
		case "id":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return id, method, false
			}
			if len(raw) > 0 && (raw[0] == '"' || raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
				id = raw
			}
		case "method":
			if err := dec.Decode(&method); err != nil {
				return id, "", false
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return id, method, false
			}
		}
	}
	_, err := dec.Token()
	return id, method, err == nil
}
