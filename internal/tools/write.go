package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

const writeDescription = `Writes a whole file, creating it and its parent directories or replacing its content. Read an existing file first; to change part of one, use edit.`

const writeSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "Absolute or relative to the workspace root"},
    "content": {"type": "string"}
  },
  "required": ["file_path", "content"],
  "additionalProperties": false
}`

type writeTool struct {
	SchemaCache
	fileTool
}

// NewWrite returns the write tool, which creates or overwrites files in ws.
func NewWrite(ws Workspace) Tool { return &writeTool{fileTool: fileTool{ws: ws}} }

func (*writeTool) Name() string            { return "write" }
func (*writeTool) Description() string     { return writeDescription }
func (*writeTool) Schema() json.RawMessage { return writeSchemaJSON }
func (*writeTool) Kind() Kind              { return Edit }

type writeInput struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

func (t *writeTool) Run(ctx context.Context, call Call) (Result, error) {
	in, err := decodeInput[writeInput](t.Name(), call.Input)
	if err != nil {
		return Result{}, err
	}
	tg, err := t.ws.target(in.FilePath)
	if err != nil {
		return Result{}, err
	}
	abs := tg.abs
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	mode := fs.FileMode(0o644)
	prev, err := tg.stat()
	switch {
	case err == nil && prev.IsDir():
		return Result{}, fmt.Errorf("%s is a directory; give the path of a file inside it", abs)
	case err == nil && !prev.Mode().IsRegular():
		return Result{}, fmt.Errorf("%s is not a regular file (%s); write only writes files", abs, prev.Mode().Type())
	case err == nil:
		mode = prev.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return Result{}, fmt.Errorf("cannot access %s: %w", abs, err)
	}
	if err := t.ws.writeText(ctx, tg, []byte(in.Content), mode); err != nil {
		return Result{}, err
	}
	if prev == nil {
		return Result{Content: fmt.Sprintf("Created %s (%d bytes).", abs, len(in.Content))}, nil
	}
	return Result{Content: fmt.Sprintf("Overwrote %s (%d bytes; it had %d).", abs, len(in.Content), prev.Size())}, nil
}

// fileTool gives the tools whose input names one file_path (write, edit,
// multi_edit) their workspace and the Subject and LockKeys that follow
// from that path.
type fileTool struct{ ws Workspace }

type filePathInput struct {
	FilePath string `json:"file_path"`
}

// Subject is the path, relative to the workspace root when inside.
func (f fileTool) Subject(input json.RawMessage) string {
	in, err := decodeInput[filePathInput]("", input)
	if err != nil {
		return ""
	}
	return subjectPath(f.ws, in.FilePath)
}

// LockKeys is the real absolute path, so writes and edits of one file
// (by any name, by any of these tools) run one at a time.
func (f fileTool) LockKeys(input json.RawMessage) []string {
	in, err := decodeInput[filePathInput]("", input)
	if err != nil {
		return nil
	}
	return fileLockKeys(f.ws, in.FilePath)
}

// fileLockKeys is the symlink-free absolute path of p, the key that
// serialises writes to one file.
func fileLockKeys(ws Workspace, p string) []string {
	_, real, err := ws.resolve(p)
	if err != nil {
		return nil
	}
	return []string{real}
}

// writeSchemaJSON is laid out by the linker, not built at init nor per call:
// every request of every agent asks each tool for its schema.
var writeSchemaJSON = json.RawMessage(writeSchema)
