package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

const multiEditDescription = `Makes several edits to one file, all or none: each follows edit's rules and applies to the result of the ones before it. Shows one diff.`

const multiEditSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "Absolute or relative to the workspace root"},
    "edits": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "properties": {
          "old_string": {"type": "string"},
          "new_string": {"type": "string"},
          "replace_all": {"type": "boolean"}
        },
        "required": ["old_string", "new_string"],
        "additionalProperties": false
      }
    }
  },
  "required": ["file_path", "edits"],
  "additionalProperties": false
}`

type multiEditTool struct {
	SchemaCache
	fileTool
}

// NewMultiEdit returns the multi_edit tool, which applies several exact
// replacements to one file in ws, all or nothing.
func NewMultiEdit(ws Workspace) Tool { return &multiEditTool{fileTool: fileTool{ws: ws}} }

func (*multiEditTool) Name() string            { return "multi_edit" }
func (*multiEditTool) Description() string     { return multiEditDescription }
func (*multiEditTool) Schema() json.RawMessage { return multiEditSchemaJSON }
func (*multiEditTool) Kind() Kind              { return Edit }

type multiEditInput struct {
	FilePath string `json:"file_path"`
	// Edits take edit's fields but file_path (the schema refuses it).
	Edits []editInput `json:"edits"`
}

// Diff shows what the call would change, without writing.
func (t *multiEditTool) Diff(input json.RawMessage) (string, error) {
	p, _, err := t.plan(context.Background(), input)
	if err != nil {
		return "", err
	}
	return p.diff, nil
}

func (t *multiEditTool) Run(ctx context.Context, call Call) (Result, error) {
	p, tg, err := t.plan(ctx, call.Input)
	if err != nil {
		return Result{}, err
	}
	abs := tg.abs
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := t.ws.writeText(ctx, tg, []byte(p.content), p.mode); err != nil {
		return Result{}, err
	}
	verb := "Edited"
	if p.created {
		verb = "Created"
	}
	return Result{Content: fmt.Sprintf("%s %s: %d %s, %d %s.\n%s", verb, abs,
		p.edits, plural(p.edits, "edit", "edits"), p.count, plural(p.count, "replacement", "replacements"), p.diff)}, nil
}

// multiEditPlan is a multi_edit worked out in memory, not yet written.
type multiEditPlan struct {
	content string
	mode    fs.FileMode
	created bool
	edits   int
	count   int // replacements made by all edits
	diff    string
}

// plan applies the edits of input one after another to the file's
// content in memory; the first that fails fails the whole call.
func (t *multiEditTool) plan(ctx context.Context, input json.RawMessage) (multiEditPlan, target, error) {
	in, err := decodeInput[multiEditInput](t.Name(), input)
	if err != nil {
		return multiEditPlan{}, target{}, err
	}
	if len(in.Edits) == 0 {
		return multiEditPlan{}, target{}, errors.New("edits is empty; give at least one {old_string, new_string}")
	}
	tg, err := t.ws.target(in.FilePath)
	if err != nil {
		return multiEditPlan{}, target{}, err
	}
	abs := tg.abs
	original, mode, exists, err := t.ws.readEditTarget(ctx, tg)
	if err != nil {
		return multiEditPlan{}, target{}, err
	}
	p := multiEditPlan{mode: mode, created: !exists, edits: len(in.Edits)}
	if !exists && in.Edits[0].OldString != "" {
		return multiEditPlan{}, target{}, fmt.Errorf("%s does not exist; to create it, give the first edit an empty old_string and the content as new_string (or use write)", abs)
	}
	content := original
	for i, e := range in.Edits {
		if i > 0 && e.OldString == "" {
			return multiEditPlan{}, target{}, editFailed(i, len(in.Edits), errors.New("old_string is empty; only the first edit may have an empty old_string, to create the file"))
		}
		r, err := replaceIn(abs, content, e)
		if err != nil {
			return multiEditPlan{}, target{}, editFailed(i, len(in.Edits), err)
		}
		content = r.content
		p.count += len(r.offsets)
	}
	p.content = content
	name := t.ws.display(abs)
	if p.created {
		p.diff = formatDiff("/dev/null", "b/"+name, nil, []lineChange{{newLines: splitLines(content)}})
	} else {
		old := splitLines(original)
		p.diff = formatDiff("a/"+name, "b/"+name, old, lineDiff(old, splitLines(content)))
	}
	return p, tg, nil
}

func editFailed(i, n int, err error) error {
	return fmt.Errorf("edits[%d] (edit %d of %d) failed, so no edit was written: %w", i, i+1, n, err)
}

// multiEditSchemaJSON is laid out by the linker, not built at init nor per call:
// every request of every agent asks each tool for its schema.
var multiEditSchemaJSON = json.RawMessage(multiEditSchema)
