package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const globDescription = `Finds files by glob pattern (*, ?, [abc], **, {a,b}) under path, newest first, at most 1000; files .gitignore excludes are skipped. "*.go" matches in path only, "**/*.go" below it.`

const globSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string"},
    "path": {"type": "string", "description": "Directory (default: the workspace root)"}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

// Glob limits.
const (
	globMaxResults = 1000
	// globMaxCollect bounds the matches held in memory while walking.
	globMaxCollect = 100000
)

type globTool struct {
	SchemaCache
	ws Workspace
}

// NewGlob returns the glob tool, which finds files by name pattern in ws.
func NewGlob(ws Workspace) Tool { return &globTool{ws: ws} }

func (*globTool) Name() string            { return "glob" }
func (*globTool) Description() string     { return globDescription }
func (*globTool) Schema() json.RawMessage { return globSchemaJSON }
func (*globTool) Kind() Kind              { return ReadOnly }

type globInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

// Subject is the pattern.
func (t *globTool) Subject(input json.RawMessage) string {
	in, err := decodeInput[globInput](t.Name(), input)
	if err != nil {
		return ""
	}
	return in.Pattern
}

// fileHit is a found file and when it was last changed.
type fileHit struct {
	abs   string
	mtime time.Time
}

func (t *globTool) Run(ctx context.Context, call Call) (Result, error) {
	in, err := decodeInput[globInput](t.Name(), call.Input)
	if err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(in.Pattern) == "" {
		return Result{}, errors.New("pattern is empty")
	}
	tg, err := searchDir(t.ws, in.Path)
	if err != nil {
		return Result{}, err
	}
	// Leading segments without wildcards pick the directory to walk.
	pattern := filepath.ToSlash(in.Pattern)
	dir, rest := literalPrefix(pattern)
	if strings.HasPrefix(pattern, "/") && dir == "" {
		dir = "/"
	}
	if dir != "" {
		start := dir
		if !path.IsAbs(start) {
			start = filepath.Join(tg.abs, filepath.FromSlash(dir))
		}
		if tg, err = t.ws.target(start); err != nil {
			return Result{}, err
		}
	}
	base := tg.abs
	g, err := compileGlob(rest)
	if err != nil {
		return Result{}, err
	}
	if fi, err := tg.stat(); err != nil {
		return Result{}, statError(t.ws, base, err)
	} else if !fi.IsDir() {
		return Result{}, fmt.Errorf("%s is not a folder: glob searches folders (read a file with read)", base)
	}
	root, err := t.ws.root()
	if err != nil {
		return Result{}, err
	}
	tr, err := t.ws.openTree(tg)
	if err != nil {
		return Result{}, err
	}
	defer tr.close()
	var hits []fileHit
	capped := false
	skipped, err := walkTree(ctx, tr, base, root, func(abs string, d fs.DirEntry) error {
		rel, _ := relBelow(base, abs)
		if t.ws.hidden(abs) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if !g.canDescend(rel) {
				return fs.SkipDir
			}
			return nil
		}
		if !g.match(rel) {
			return nil
		}
		_, fi, ok := tr.file(abs, d)
		if !ok {
			return nil
		}
		hits = append(hits, fileHit{abs: abs, mtime: fi.ModTime()})
		if len(hits) >= globMaxCollect {
			capped = true
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	if len(hits) == 0 {
		return Result{Content: fmt.Sprintf("No files found matching %q in %s.", in.Pattern, t.ws.where(base)) + skipped.note()}, nil
	}
	sortNewestFirst(hits)
	var b strings.Builder
	for i, h := range hits {
		if i == globMaxResults {
			break
		}
		b.WriteString(t.ws.display(h.abs))
		b.WriteByte('\n')
	}
	switch {
	case capped:
		fmt.Fprintf(&b, "[showing %d of more than %d matches; narrow the pattern or path]\n", globMaxResults, globMaxCollect)
	case len(hits) > globMaxResults:
		fmt.Fprintf(&b, "[showing the %d most recently modified of %d matches; narrow the pattern or path]\n", globMaxResults, len(hits))
	}
	if n := skipped.note(); n != "" {
		fmt.Fprintf(&b, "[%s]\n", strings.TrimSpace(n))
	}
	return Result{Content: strings.TrimRight(b.String(), "\n")}, nil
}

// sortNewestFirst orders hits by modification time, newest first, then by
// path.
func sortNewestFirst(hits []fileHit) {
	sort.Slice(hits, func(i, j int) bool {
		if !hits[i].mtime.Equal(hits[j].mtime) {
			return hits[i].mtime.After(hits[j].mtime)
		}
		return hits[i].abs < hits[j].abs
	})
}

// searchDir resolves the optional path of a search tool: empty means the
// workspace root.
func searchDir(ws Workspace, p string) (target, error) {
	if strings.TrimSpace(p) == "" {
		p = "."
	}
	return ws.target(p)
}

// globSchemaJSON is laid out by the linker, not built at init nor per call:
// every request of every agent asks each tool for its schema.
var globSchemaJSON = json.RawMessage(globSchema)
