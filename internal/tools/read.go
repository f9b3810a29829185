package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

const readDescription = `Reads a text file, up to 2000 lines from offset (1-based); a note says how to read on. Output is numbered like cat -n: leave the number and tab out of old_string when you edit. Lines over 2000 characters are cut; a file over 10 MiB must be read in parts. Binary files and directories are refused.`

const readSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "Absolute or relative to the workspace root"},
    "offset": {"type": "integer", "minimum": 0, "description": "First line, 1-based"},
    "limit": {"type": "integer", "minimum": 1, "description": "Lines to read (default 2000)"}
  },
  "required": ["file_path"],
  "additionalProperties": false
}`

// Read limits.
const (
	readDefaultLimit = 2000
	readMaxLineLen   = 2000
	// readMaxWhole is the largest file read without offset or limit: a whole
	// read of anything bigger would flood the context.
	readMaxWhole = 10 << 20
	// readMaxOutput bounds one call's output; the note says where to go on.
	readMaxOutput = 256 << 10
)

type readTool struct {
	SchemaCache
	ws Workspace
}

// NewRead returns the read tool, which reads text files in ws.
func NewRead(ws Workspace) Tool { return &readTool{ws: ws} }

func (*readTool) Name() string            { return "read" }
func (*readTool) Description() string     { return readDescription }
func (*readTool) Schema() json.RawMessage { return readSchemaJSON }
func (*readTool) Kind() Kind              { return ReadOnly }

// Subject is the path to read, as permission patterns see it.
func (t *readTool) Subject(input json.RawMessage) string {
	in, err := decodeInput[readInput](t.Name(), input)
	if err != nil {
		return ""
	}
	return subjectPath(t.ws, in.FilePath)
}

type readInput struct {
	FilePath string `json:"file_path"`
	Offset   *int   `json:"offset"`
	Limit    *int   `json:"limit"`
}

func (t *readTool) Run(ctx context.Context, call Call) (Result, error) {
	in, err := decodeInput[readInput](t.Name(), call.Input)
	if err != nil {
		return Result{}, err
	}
	tg, err := t.ws.target(in.FilePath)
	if err != nil {
		return Result{}, err
	}
	abs := tg.abs
	offset, limit := 1, readDefaultLimit
	if in.Offset != nil && *in.Offset > 1 {
		offset = *in.Offset
	}
	if in.Limit != nil {
		limit = *in.Limit
	}
	if text, ok := t.ws.clientRead(ctx, tg); ok { // the editor's buffer, saved or not
		out, err := readLines(ctx, abs, strings.NewReader(text), offset, limit, true)
		if err != nil {
			return Result{}, err
		}
		return Result{Content: out}, nil
	}
	fi, err := tg.stat()
	if err != nil {
		return Result{}, statError(t.ws, abs, err)
	}
	if fi.IsDir() {
		return Result{}, fmt.Errorf("%s is a directory, not a file; use ls to list it", abs)
	}
	if !fi.Mode().IsRegular() {
		return Result{}, fmt.Errorf("%s is not a regular file (%s); read only reads files", abs, fi.Mode().Type())
	}
	if fi.Size() > readMaxWhole && in.Offset == nil && in.Limit == nil {
		return Result{}, fmt.Errorf("%s is %s, over the %s limit for reading a whole file; read a part with offset and limit, or find what you need with grep",
			abs, humanBytes(fi.Size()), humanBytes(readMaxWhole))
	}
	f, err := tg.open()
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > readMaxWhole && in.Offset == nil && in.Limit == nil {
		return Result{}, fmt.Errorf("%s changed while it was being opened; read it again", abs)
	}
	out, err := readLines(ctx, abs, f, offset, limit, fi.Size() <= readMaxWhole)
	if err != nil {
		return Result{}, err
	}
	return Result{Content: out}, nil
}

// readLines formats lines [offset, offset+limit) of r like cat -n. When
// countAll is set it reads on to the end to report the file's line count.
func readLines(ctx context.Context, name string, r io.Reader, offset, limit int, countAll bool) (string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", fmt.Errorf("reading %s: %w", name, err)
	}
	if len(head) == 0 {
		return fmt.Sprintf("(%s is empty)", name), nil
	}
	if looksBinary(head) {
		return "", fmt.Errorf("%s is a binary file; read only shows text files", name)
	}
	var b strings.Builder
	lineNo, shown, last := 0, 0, 0
	full, more := false, false // output cap reached; lines follow, total unknown
	for {
		if lineNo%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		line, ok, err := readLine(br, readMaxLineLen)
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", name, err)
		}
		if !ok {
			break
		}
		lineNo++
		if lineNo < offset {
			continue
		}
		if shown < limit && !full {
			entry := fmt.Sprintf("%6d\t%s\n", lineNo, line)
			if b.Len()+len(entry) > readMaxOutput && shown > 0 {
				full = true
			} else {
				b.WriteString(entry)
				shown++
				last = lineNo
				continue
			}
		}
		if !countAll {
			more = true
			break
		}
	}
	if shown == 0 {
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines", offset, name, lineNo)
	}
	switch {
	case more:
		fmt.Fprintf(&b, "\n[showing lines %d-%d; the file goes on: read on with offset=%d]", offset, last, last+1)
	case last < lineNo:
		fmt.Fprintf(&b, "\n[showing lines %d-%d of %d; read on with offset=%d]", offset, last, lineNo, last+1)
	}
	return b.String(), nil
}

// readLine returns the next line without its line ending; a line longer
// than keep bytes is cut on a rune boundary with a note, the rest read and
// discarded. ok is false at the end of input.
func readLine(br *bufio.Reader, keep int) (line string, ok bool, err error) {
	var buf []byte
	var chunk []byte
	total := 0
	for {
		chunk, err = br.ReadSlice('\n')
		total += len(chunk)
		if room := keep + 2 - len(buf); room > 0 { // +2: room for "\r\n"
			buf = append(buf, chunk[:min(room, len(chunk))]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return "", false, err
	}
	if total == 0 {
		return "", false, nil
	}
	switch {
	case bytes.HasSuffix(chunk, []byte("\r\n")):
		total -= 2
	case bytes.HasSuffix(chunk, []byte("\n")):
		total--
	}
	if total <= keep {
		return strings.TrimRight(string(buf), "\r\n"), true, nil
	}
	return cutLine(string(buf[:min(len(buf), total)]), keep, total), true, nil
}

// statError explains a failed stat of a path the model gave.
func statError(ws Workspace, abs string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist (relative paths are resolved against the workspace root %s)", abs, ws.Root)
	}
	return fmt.Errorf("cannot access %s: %w", abs, err)
}

// humanBytes formats a size for people: 1.5 MiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	s := fmt.Sprintf("%.1f", v)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + string("KMGTPE"[exp]) + "iB"
}

// subjectPath is how a path appears to permission rules: relative to the
// workspace root when inside it, else absolute; the raw text when it does
// not resolve.
func subjectPath(ws Workspace, p string) string {
	abs, err := ws.Resolve(p)
	if err != nil {
		return p
	}
	return ws.display(abs)
}

// readSchemaJSON is laid out by the linker, not built at init nor per call:
// every request of every agent asks each tool for its schema.
var readSchemaJSON = json.RawMessage(readSchema)
