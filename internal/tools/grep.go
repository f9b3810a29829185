package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const grepDescription = `Searches file contents, line by line, for a Go RE2 regular expression (no lookaround or backreferences). files_with_matches lists files newest first; content shows path:line:text; count counts per file. Binary files and files .gitignore excludes are skipped. Use it, not grep or rg in bash.`

const grepSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string"},
    "path": {"type": "string", "description": "File or directory (default: the workspace root)"},
    "glob": {"type": "string", "description": "Only files matching it: *.go, src/**/*.ts"},
    "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"]},
    "case_insensitive": {"type": "boolean"},
    "head_limit": {"type": "integer", "minimum": 1, "description": "Keep the first N results"}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

// Grep limits.
const (
	// grepMaxResults caps results when no head_limit is given.
	grepMaxResults = 1000
	// grepMaxOutput caps the text returned, whatever the limit.
	grepMaxOutput  = 50000
	grepMaxLineLen = 500
	// grepMaxFileSize: bigger files are skipped (logs, dumps, data).
	grepMaxFileSize = 64 << 20
)

// Output modes.
const (
	grepFiles   = "files_with_matches"
	grepContent = "content"
	grepCount   = "count"
)

type grepTool struct {
	SchemaCache
	ws Workspace
}

// NewGrep returns the grep tool, which searches file contents in ws.
func NewGrep(ws Workspace) Tool { return &grepTool{ws: ws} }

func (*grepTool) Name() string            { return "grep" }
func (*grepTool) Description() string     { return grepDescription }
func (*grepTool) Schema() json.RawMessage { return grepSchemaJSON }
func (*grepTool) Kind() Kind              { return ReadOnly }

type grepInput struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path"`
	Glob            string `json:"glob"`
	OutputMode      string `json:"output_mode"`
	CaseInsensitive bool   `json:"case_insensitive"`
	HeadLimit       int    `json:"head_limit"`
}

// Subject is the pattern.
func (t *grepTool) Subject(input json.RawMessage) string {
	in, err := decodeInput[grepInput](t.Name(), input)
	if err != nil {
		return ""
	}
	return in.Pattern
}

// grepMatch is one matching line.
type grepMatch struct {
	line int
	text string
}

// grepFile is what one file yielded.
type grepFile struct {
	abs     string
	mtime   time.Time
	count   int
	matches []grepMatch // content mode only
}

func (t *grepTool) Run(ctx context.Context, call Call) (Result, error) {
	in, err := decodeInput[grepInput](t.Name(), call.Input)
	if err != nil {
		return Result{}, err
	}
	mode := in.OutputMode
	if mode == "" {
		mode = grepFiles
	}
	if mode != grepFiles && mode != grepContent && mode != grepCount {
		return Result{}, fmt.Errorf("output_mode %q is not one of %s, %s, %s", mode, grepFiles, grepContent, grepCount)
	}
	re, err := compileGrep(in.Pattern, in.CaseInsensitive)
	if err != nil {
		return Result{}, err
	}
	tg, err := searchDir(t.ws, in.Path)
	if err != nil {
		return Result{}, err
	}
	base := tg.abs
	fi, err := tg.stat()
	if err != nil {
		return Result{}, statError(t.ws, base, err)
	}
	var files []target
	var skipped unread
	if fi.IsDir() {
		if files, skipped, err = t.listFiles(ctx, tg, in.Glob); err != nil {
			return Result{}, err
		}
	} else if !t.ws.hidden(base) {
		files = []target{tg} // an explicit file is searched whatever ignores it
	}
	found, err := searchFiles(ctx, re, files, mode)
	if err != nil {
		return Result{}, err
	}
	if len(found) == 0 {
		return Result{Content: fmt.Sprintf("No matches found for %q in %s.", in.Pattern, t.ws.where(base)) + skipped.note()}, nil
	}
	limit := grepMaxResults
	if in.HeadLimit > 0 {
		limit = in.HeadLimit
	}
	out := t.format(mode, found, limit, in.HeadLimit > 0)
	if n := skipped.note(); n != "" {
		out += "\n[" + strings.TrimSpace(n) + "]"
	}
	return Result{Content: out}, nil
}

// compileGrep compiles the model's pattern for line-wise matching.
func compileGrep(pattern string, caseInsensitive bool) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v (grep uses Go RE2 syntax: no lookahead, lookbehind or backreferences)", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	flags := "(?m)"
	if caseInsensitive {
		flags = "(?mi)"
	}
	return regexp.Compile(flags + pattern)
}

// listFiles walks base for the files to search: regular, not ignored, and
// matching the glob filter (by base name, or by path when it has a "/").
func (t *grepTool) listFiles(ctx context.Context, top target, glob string) ([]target, unread, error) {
	base := top.abs
	var g *globPattern
	byPath := strings.Contains(glob, "/")
	if glob != "" {
		var err error
		if g, err = compileGlob(strings.TrimPrefix(glob, "./")); err != nil {
			return nil, unread{}, err
		}
	}
	root, err := t.ws.root()
	if err != nil {
		return nil, unread{}, err
	}
	tr, err := t.ws.openTree(top)
	if err != nil {
		return nil, unread{}, err
	}
	defer tr.close()
	var files []target
	skipped, err := walkTree(ctx, tr, base, root, func(abs string, d fs.DirEntry) error {
		if t.ws.hidden(abs) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if g != nil {
			name := d.Name()
			if byPath {
				name, _ = relBelow(base, abs)
			}
			if !g.match(name) {
				return nil
			}
		}
		if f, fi, ok := tr.file(abs, d); ok && fi.Size() <= grepMaxFileSize {
			files = append(files, f)
		}
		return nil
	})
	return files, skipped, err
}

// searchFiles searches files concurrently and returns those with matches,
// in the order given. mode says how much to find in each file.
func searchFiles(ctx context.Context, re *regexp.Regexp, files []target, mode string) ([]grepFile, error) {
	results := make([]grepFile, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(files), 8)
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				results[i] = searchFile(re, files[i], mode)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	found := results[:0]
	for _, r := range results {
		if r.count > 0 {
			found = append(found, r)
		}
	}
	return found, nil
}

// searchFile finds the lines of one file matching re (in files mode, only
// the first). Unreadable and
// binary files yield nothing. The whole file is scanned for a candidate
// first and only candidate lines are checked, which keeps files without
// matches cheap.
func searchFile(re *regexp.Regexp, f target, mode string) grepFile {
	r := grepFile{abs: f.abs}
	data, fi, err := f.readRegular()
	if err != nil || bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return r
	}
	r.mtime = fi.ModTime()
	lineNo, counted := 1, 0 // line number of byte offset counted
	for pos := 0; pos < len(data); {
		loc := re.FindIndex(data[pos:])
		if loc == nil {
			break
		}
		start := pos + loc[0]
		lineStart := bytes.LastIndexByte(data[:start], '\n') + 1
		lineEnd := len(data)
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			lineEnd = start + i
		}
		if lineStart < pos { // an empty match at the end of the previous line
			lineStart = pos
		}
		line := bytes.TrimSuffix(data[lineStart:lineEnd], []byte("\r"))
		if re.Match(line) {
			lineNo += bytes.Count(data[counted:lineStart], []byte("\n"))
			counted = lineStart
			r.count++
			switch mode {
			case grepFiles:
				return r // one match is all this mode needs
			case grepContent:
				r.matches = append(r.matches, grepMatch{line: lineNo, text: cutLine(string(line), grepMaxLineLen, len(line))})
			}
		}
		pos = lineEnd + 1
	}
	return r
}

// format renders the results in the output mode, at most limit entries and
// about grepMaxOutput bytes.
func (t *grepTool) format(mode string, found []grepFile, limit int, userLimit bool) string {
	var lines []string
	total := 0
	switch mode {
	case grepFiles:
		hits := make([]fileHit, len(found))
		for i, f := range found {
			hits[i].abs, hits[i].mtime = f.abs, f.mtime
		}
		sortNewestFirst(hits)
		for _, h := range hits {
			lines = append(lines, t.ws.display(h.abs))
		}
		total = len(found)
	case grepContent:
		for _, f := range found {
			name := t.ws.display(f.abs)
			for _, m := range f.matches {
				lines = append(lines, fmt.Sprintf("%s:%d:%s", name, m.line, m.text))
			}
		}
		total = len(lines)
	case grepCount:
		for _, f := range found {
			lines = append(lines, fmt.Sprintf("%s:%d", t.ws.display(f.abs), f.count))
			total += f.count
		}
	}
	var b strings.Builder
	switch mode {
	case grepFiles:
		fmt.Fprintf(&b, "Found %d %s\n", len(found), plural(len(found), "file", "files"))
	case grepCount:
		fmt.Fprintf(&b, "%d matching %s in %d %s\n", total, plural(total, "line", "lines"), len(found), plural(len(found), "file", "files"))
	}
	shown := 0
	for _, l := range lines {
		if shown == limit || b.Len()+len(l) > grepMaxOutput {
			break
		}
		b.WriteString(l)
		b.WriteByte('\n')
		shown++
	}
	if shown < len(lines) {
		if userLimit && shown == limit {
			fmt.Fprintf(&b, "[showing the first %d of %d results (head_limit)]", shown, len(lines))
		} else {
			fmt.Fprintf(&b, "[showing the first %d of %d results; narrow the search with path, glob, a more specific pattern, or head_limit]", shown, len(lines))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// grepSchemaJSON is laid out by the linker, not built at init nor per call:
// every request of every agent asks each tool for its schema.
var grepSchemaJSON = json.RawMessage(grepSchema)
