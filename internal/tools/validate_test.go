package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestExecuteRejectsBadInputWithReadableErrors(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "a\n"})
	read, grep := NewRead(ws), NewGrep(ws)
	tests := []struct {
		name  string
		tool  Tool
		input string
		want  []string
	}{
		{"missing required field", read, `{}`, []string{"tool read", "missing required field `file_path`"}},
		{"wrong type", read, `{"file_path":"a.txt","limit":"ten"}`, []string{"tool read", "`limit` must be an integer", `string "ten"`}},
		{"fraction for an integer", read, `{"file_path":"a.txt","limit":2.5}`, []string{"`limit` must be an integer", "number 2.5"}},
		{"unknown field", read, `{"file_path":"a.txt","foo":1}`, []string{"tool read", "unknown field `foo`", "known fields: file_path, limit, offset"}},
		{"array input", read, `["a.txt"]`, []string{"input is not a JSON object", "an array"}},
		{"string input", read, `"a.txt"`, []string{"input is not a JSON object"}},
		{"null input", read, `null`, []string{"input is not a JSON object"}},
		{"invalid JSON", read, `{"file_path":`, []string{"input is not valid JSON"}},
		{"below minimum", read, `{"file_path":"a.txt","limit":0}`, []string{"`limit` must be at least 1"}},
		{"not in enum", grep, `{"pattern":"a","output_mode":"lines"}`, []string{"`output_mode` must be one of files_with_matches, content, count"}},
		{"wrong type of string field", grep, `{"pattern":7}`, []string{"`pattern` must be a string, got number 7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Execute(context.Background(), tt.tool, Call{Input: json.RawMessage(tt.input)})
			if !res.IsError {
				t.Fatalf("want an error result, got %q", res.Content)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("error %q does not contain %q", res.Content, w)
				}
			}
		})
	}
}

func TestValidateReturnsInputErrorNamingTheField(t *testing.T) {
	err := Validate(NewRead(Workspace{Root: t.TempDir()}), json.RawMessage(`{"offset":1}`))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Tool != "read" || ie.Field != "file_path" {
		t.Fatalf("Validate error = %#v", err)
	}
}

func TestValidateReportsDeeperViolationsThroughTheSchemaValidator(t *testing.T) {
	tool := &fakeTool{name: "tags", schema: `{
		"type":"object",
		"properties":{"tags":{"type":"array","items":{"type":"string"},"minItems":1}},
		"additionalProperties":false}`}
	for _, tt := range []struct{ input, want string }{
		{`{"tags":[1]}`, "`tags`"},
		{`{"tags":[]}`, "minItems"},
	} {
		err := Validate(tool, json.RawMessage(tt.input))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "tool tags") {
			t.Errorf("Validate(%s) = %v, want it to mention %s", tt.input, err, tt.want)
		}
	}
	if err := Validate(tool, json.RawMessage(`{"tags":["a"]}`)); err != nil {
		t.Errorf("valid input rejected: %v", err)
	}
}

func TestValidateTreatsEmptyInputAsEmptyObject(t *testing.T) {
	ls := NewLs(newWorkspace(t, map[string]string{"x": ""}))
	if err := Validate(ls, nil); err != nil {
		t.Fatalf("empty input for a tool without required fields: %v", err)
	}
	res := Execute(context.Background(), ls, Call{Input: json.RawMessage("  ")})
	if res.IsError || !strings.Contains(res.Content, "x") {
		t.Fatalf("ls with empty input: %+v", res)
	}
}

func TestValidateResolvesEachToolSchemaOnce(t *testing.T) {
	tool := &fakeTool{name: "once"}
	if err := Validate(tool, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	first, _ := tool.ResolvedSchema(nil)
	if err := Validate(tool, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	second, _ := tool.ResolvedSchema(nil)
	if first == nil || first != second {
		t.Fatalf("schema resolved again: %p then %p", first, second)
	}
}

func TestValidateReportsABrokenSchema(t *testing.T) {
	tool := &fakeTool{name: "broken", schema: `{"type": 5}`}
	err := Validate(tool, json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), "tool broken has a broken input schema") {
		t.Fatalf("Validate = %v", err)
	}
}

func TestExecuteRecoversAPanickingTool(t *testing.T) {
	tool := &fakeTool{name: "boom", run: func(context.Context, Call) (Result, error) {
		var m map[string]int
		m["x"]++ // nil map write
		return Result{}, nil
	}}
	res := Execute(context.Background(), tool, Call{Input: json.RawMessage(`{}`)})
	if !res.IsError || !strings.Contains(res.Content, "tool boom crashed") || !strings.Contains(res.Content, "nil map") {
		t.Fatalf("Execute = %+v", res)
	}
}

func TestExecuteTurnsARunErrorIntoAnErrorResult(t *testing.T) {
	tool := &fakeTool{name: "fails", run: func(context.Context, Call) (Result, error) {
		return Result{Content: "ignored"}, errors.New("disk on fire")
	}}
	res := Execute(context.Background(), tool, Call{})
	if !res.IsError || res.Content != "disk on fire" {
		t.Fatalf("Execute = %+v", res)
	}
	ok := &fakeTool{name: "fine"}
	if res := Execute(context.Background(), ok, Call{Input: json.RawMessage(`{}`)}); res.IsError || res.Content != "fine ran" {
		t.Fatalf("Execute of a working tool = %+v", res)
	}
}
