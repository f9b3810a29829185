package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/atomic-agent/atomic/internal/lazy"
)

const editDescription = `Replaces old_string with new_string in a file and shows the diff. Read the file first: old_string must match it exactly (indentation included, without read's line numbers) and only once, unless replace_all. An empty old_string creates the file; an empty new_string deletes the text.`

const editSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "Absolute or relative to the workspace root"},
    "old_string": {"type": "string"},
    "new_string": {"type": "string"},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence"}
  },
  "required": ["file_path", "old_string", "new_string"],
  "additionalProperties": false
}`

// Differ is implemented by tools that can show, before they run, the
// change a call would make; approval prompts display it.
type Differ interface {
	Diff(input json.RawMessage) (string, error)
}

type editTool struct {
	SchemaCache
	fileTool
}

// NewEdit returns the edit tool, which replaces exact strings in files in
// ws.
func NewEdit(ws Workspace) Tool { return &editTool{fileTool: fileTool{ws: ws}} }

func (*editTool) Name() string            { return "edit" }
func (*editTool) Description() string     { return editDescription }
func (*editTool) Schema() json.RawMessage { return editSchemaJSON }
func (*editTool) Kind() Kind              { return Edit }

type editInput struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// Diff shows what the call would change, without writing.
func (t *editTool) Diff(input json.RawMessage) (string, error) {
	in, err := decodeInput[editInput](t.Name(), input)
	if err != nil {
		return "", err
	}
	tg, err := t.ws.target(in.FilePath)
	if err != nil {
		return "", err
	}
	p, err := planEdit(context.Background(), t.ws, tg, t.ws.display(tg.abs), in)
	if err != nil {
		return "", err
	}
	return p.diff, nil
}

// EditDiff returns the diff an edit call with input would make to the file
// at path (absolute; empty means the input's file_path as given), without
// writing anything.
func EditDiff(path string, input json.RawMessage) (string, error) {
	in, err := decodeInput[editInput]("edit", input)
	if err != nil {
		return "", err
	}
	if path == "" {
		path = in.FilePath
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("path %s: %w", path, err)
	}
	tg, err := outsideTarget(abs)
	if err != nil {
		return "", err
	}
	p, err := planEdit(context.Background(), Workspace{}, tg, path, in)
	if err != nil {
		return "", err
	}
	return p.diff, nil
}

func (t *editTool) Run(ctx context.Context, call Call) (Result, error) {
	in, err := decodeInput[editInput](t.Name(), call.Input)
	if err != nil {
		return Result{}, err
	}
	tg, err := t.ws.target(in.FilePath)
	if err != nil {
		return Result{}, err
	}
	abs := tg.abs
	p, err := planEdit(ctx, t.ws, tg, t.ws.display(abs), in)
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := t.ws.writeText(ctx, tg, []byte(p.content), p.mode); err != nil {
		return Result{}, err
	}
	var what string
	switch {
	case p.created:
		what = fmt.Sprintf("Created %s.", abs)
	case p.count == 1:
		what = fmt.Sprintf("Edited %s: 1 replacement.", abs)
	default:
		what = fmt.Sprintf("Edited %s: %d replacements.", abs, p.count)
	}
	return Result{Content: what + "\n" + p.diff}, nil
}

// editPlan is an edit worked out but not yet written.
type editPlan struct {
	content string // the file's new content
	mode    fs.FileMode
	created bool
	count   int // replacements made
	diff    string
}

// planEdit works out the edit in of the file tg, named name in the diff,
// reading it through ws.
func planEdit(ctx context.Context, ws Workspace, tg target, name string, in editInput) (editPlan, error) {
	if err := checkEdit(in); err != nil {
		return editPlan{}, err
	}
	abs := tg.abs
	content, mode, exists, err := ws.readEditTarget(ctx, tg)
	if err != nil {
		return editPlan{}, err
	}
	p := editPlan{mode: mode}
	if !exists {
		if in.OldString != "" {
			return editPlan{}, missingFileError(abs)
		}
		p.created, p.content, p.count = true, in.NewString, 1
		p.diff = formatDiff("/dev/null", "b/"+name, nil, []lineChange{{newLines: splitLines(in.NewString)}})
		return p, nil
	}
	r, err := replaceIn(abs, content, in)
	if err != nil {
		return editPlan{}, err
	}
	p.content, p.count = r.content, len(r.offsets)
	if in.OldString == "" {
		p.diff = formatDiff("a/"+name, "b/"+name, nil, []lineChange{{newLines: splitLines(r.content)}})
		return p, nil
	}
	p.diff = formatDiff("a/"+name, "b/"+name, splitLines(content), editChanges(content, r.old, r.repl, r.offsets))
	return p, nil
}

// checkEdit refuses an edit that would change nothing.
func checkEdit(in editInput) error {
	if in.OldString == in.NewString {
		return errors.New("old_string and new_string are identical, so there is nothing to change; give the text as it should become in new_string")
	}
	return nil
}

func missingFileError(abs string) error {
	return fmt.Errorf("%s does not exist; to create it, use write (or edit with an empty old_string)", abs)
}

// readEditTarget reads the text file tg for editing, through w.Files
// when that has it (an editor's unsaved buffer); exists is false (and err
// nil) when there is no such file.
func (w Workspace) readEditTarget(ctx context.Context, tg target) (content string, mode fs.FileMode, exists bool, err error) {
	abs := tg.abs
	if text, ok := w.clientRead(ctx, tg); ok {
		mode := fs.FileMode(0o644)
		if fi, err := tg.stat(); err == nil {
			mode = fi.Mode().Perm()
		}
		return text, mode, true, nil
	}
	fi, err := tg.stat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", 0o644, false, nil
	case err != nil:
		return "", 0, false, fmt.Errorf("cannot access %s: %w", abs, err)
	case fi.IsDir():
		return "", 0, false, fmt.Errorf("%s is a directory, not a file", abs)
	case !fi.Mode().IsRegular():
		return "", 0, false, fmt.Errorf("%s is not a regular file (%s); edit only changes files", abs, fi.Mode().Type())
	}
	data, fi, err := tg.readRegular()
	if err != nil {
		return "", 0, false, err
	}
	if looksBinary(data[:min(len(data), sniffLen)]) {
		return "", 0, false, fmt.Errorf("%s is a binary file; edit only changes text files", abs)
	}
	return string(data), fi.Mode().Perm(), true, nil
}

// replacement is one edit applied to a file's content in memory.
type replacement struct {
	content   string // the content after the edit
	old, repl string // the strings really replaced (CRLF-adjusted)
	offsets   []int  // where old was found in the content before
}

// replaceIn applies in to content, the text of the existing file abs,
// with the matching rules of the edit tool: an exact, unique match unless
// replace_all; an empty old_string only fills an empty file; plain line
// breaks in old_string match a CRLF file.
func replaceIn(abs, content string, in editInput) (replacement, error) {
	if err := checkEdit(in); err != nil {
		return replacement{}, err
	}
	old, repl := in.OldString, in.NewString
	if old == "" {
		if content != "" {
			return replacement{}, fmt.Errorf("old_string is empty but %s already has content; give the exact text to replace (read the file first), or use write to replace the whole file", abs)
		}
		return replacement{content: repl, repl: repl, offsets: []int{0}}, nil
	}
	n := strings.Count(content, old)
	if n == 0 && strings.Contains(content, "\r\n") && strings.Contains(old, "\n") && !strings.Contains(old, "\r\n") {
		// The file uses CRLF line endings; read showed them as plain lines.
		crlf := strings.ReplaceAll(old, "\n", "\r\n")
		if m := strings.Count(content, crlf); m > 0 {
			old, n = crlf, m
			if !strings.Contains(repl, "\r\n") {
				repl = strings.ReplaceAll(repl, "\n", "\r\n")
			}
		}
	}
	if n == 0 {
		return replacement{}, notFoundError(abs, content, in.OldString)
	}
	if n > 1 && !in.ReplaceAll {
		return replacement{}, fmt.Errorf("old_string matches %d places in %s; add more surrounding lines to old_string so it matches exactly one, or set replace_all to true to change all %d", n, abs, n)
	}
	r := replacement{old: old, repl: repl}
	var b strings.Builder
	pos := 0
	for {
		i := strings.Index(content[pos:], old)
		if i < 0 {
			break
		}
		r.offsets = append(r.offsets, pos+i)
		b.WriteString(content[pos : pos+i])
		b.WriteString(repl)
		pos += i + len(old)
		if !in.ReplaceAll {
			break
		}
	}
	b.WriteString(content[pos:])
	r.content = b.String()
	return r, nil
}

var lineNumberPrefix = lazy.Regexp{Expr: `(?m)^ *\d+\t`}

// notFoundError explains a missing match and hints at the likely cause.
func notFoundError(abs, content, old string) error {
	msg := fmt.Sprintf("old_string was not found in %s", abs)
	switch {
	case collapseSpace(old) != "" && strings.Contains(collapseSpace(content), collapseSpace(old)):
		msg += "; it does match if whitespace is ignored, so check indentation (tabs or spaces), line breaks and trailing spaces, and copy the text exactly as read shows it"
	case lineNumberPrefix.Get().MatchString(old):
		msg += "; it seems to include read's line-number prefixes (a number and a tab at the start of lines): leave them out"
	default:
		msg += "; the file may have changed since you read it: read it again and copy the text exactly"
	}
	return errors.New(msg)
}

// collapseSpace joins the words of s with single spaces.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// editSchemaJSON is laid out by the linker, not built at init nor per call:
// every request of every agent asks each tool for its schema.
var editSchemaJSON = json.RawMessage(editSchema)
