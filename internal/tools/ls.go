package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

const lsDescription = `Lists one directory, not recursively (directories end in "/"; at most 1000 entries). Entries .gitignore excludes are left out unless include_ignored.`

const lsSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Default: the workspace root"},
    "include_ignored": {"type": "boolean"}
  },
  "additionalProperties": false
}`

const lsMaxEntries = 1000

type lsTool struct {
	SchemaCache
	ws Workspace
}

// NewLs returns the ls tool, which lists a directory in ws.
func NewLs(ws Workspace) Tool { return &lsTool{ws: ws} }

func (*lsTool) Name() string            { return "ls" }
func (*lsTool) Description() string     { return lsDescription }
func (*lsTool) Schema() json.RawMessage { return lsSchemaJSON }
func (*lsTool) Kind() Kind              { return ReadOnly }

type lsInput struct {
	Path           string `json:"path"`
	IncludeIgnored bool   `json:"include_ignored"`
}

// Subject is the directory listed.
func (t *lsTool) Subject(input json.RawMessage) string {
	in, err := decodeInput[lsInput](t.Name(), input)
	if err != nil || in.Path == "" {
		return "."
	}
	return subjectPath(t.ws, in.Path)
}

func (t *lsTool) Run(ctx context.Context, call Call) (Result, error) {
	in, err := decodeInput[lsInput](t.Name(), call.Input)
	if err != nil {
		return Result{}, err
	}
	tg, err := searchDir(t.ws, in.Path)
	if err != nil {
		return Result{}, err
	}
	dir := tg.abs
	fi, err := tg.stat()
	if err != nil {
		return Result{}, statError(t.ws, dir, err)
	}
	if !fi.IsDir() {
		return Result{}, fmt.Errorf("%s is a file, not a directory; use read to see its content", dir)
	}
	tr, err := t.ws.openTree(tg)
	if err != nil {
		return Result{}, err
	}
	entries, err := tr.readDir(dir)
	tr.close()
	if err != nil {
		return Result{}, fmt.Errorf("listing %s: %w", dir, err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var stack ignoreStack
	if !in.IncludeIgnored {
		root, err := t.ws.root()
		if err != nil {
			return Result{}, err
		}
		stack = ancestorIgnores(dir, root)
		if g := readGitignore(dir); g != nil {
			stack = append(slices.Clip(stack), g)
		}
	}
	var names []string
	hidden := 0
	for _, e := range entries {
		abs := filepath.Join(dir, e.Name())
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				isDir = true
			}
		}
		if !in.IncludeIgnored && (e.Name() == ".git" || stack.ignored(abs, isDir)) {
			hidden++
			continue
		}
		name := e.Name()
		if isDir {
			name += "/"
		}
		names = append(names, name)
	}
	var b strings.Builder
	label := t.ws.display(dir)
	if label == "." {
		label = dir
	}
	fmt.Fprintf(&b, "%s/ (%d %s)\n", strings.TrimSuffix(label, "/"), len(names), plural(len(names), "entry", "entries"))
	for i, n := range names {
		if i == lsMaxEntries {
			fmt.Fprintf(&b, "[showing %d of %d entries; use glob to find specific files]\n", lsMaxEntries, len(names))
			break
		}
		b.WriteString("  " + n + "\n")
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "[%d %s hidden by .gitignore or .git; set include_ignored to list them]\n", hidden, plural(hidden, "entry", "entries"))
	}
	return Result{Content: strings.TrimRight(b.String(), "\n")}, nil
}

// lsSchemaJSON is laid out by the linker, not built at init nor per call:
// every request of every agent asks each tool for its schema.
var lsSchemaJSON = json.RawMessage(lsSchema)
