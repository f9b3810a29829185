package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// plainTool has no SchemaCache of its own, like the task tool and MCP
// tools, made anew per agent.
type plainTool struct{ schema string }

func (plainTool) Name() string                              { return "plain" }
func (plainTool) Description() string                       { return "a tool without a schema cache" }
func (p plainTool) Schema() json.RawMessage                 { return json.RawMessage(p.schema) }
func (plainTool) Kind() Kind                                { return ReadOnly }
func (plainTool) Run(context.Context, Call) (Result, error) { return Result{Content: "ran"}, nil }

const plainSchema = `{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"],"additionalProperties":false}`

func TestValidateResolvesASchemaSharedByToolValuesOnce(t *testing.T) {
	if err := Validate(plainTool{plainSchema}, json.RawMessage(`{"n":2}`)); err != nil {
		t.Fatal(err)
	}
	first, _ := resolvedSchemas.resolve(json.RawMessage(plainSchema))
	if err := Validate(plainTool{plainSchema}, json.RawMessage(`{"n":3}`)); err != nil {
		t.Fatal(err)
	}
	second, _ := resolvedSchemas.resolve(json.RawMessage(plainSchema))
	if first == nil || first != second {
		t.Fatalf("the schema was resolved again for a second tool value: %p then %p", first, second)
	}
}

func TestValidateWithASharedSchemaStillRejectsBadInput(t *testing.T) {
	for range 2 {
		err := Validate(plainTool{plainSchema}, json.RawMessage(`{"n":0}`))
		if err == nil || !strings.Contains(err.Error(), "n") {
			t.Fatalf("Validate of n=0 = %v, want an error naming n", err)
		}
	}
	other := `{"type":"object","properties":{"s":{"type":"string"}},"additionalProperties":false}`
	if err := Validate(plainTool{other}, json.RawMessage(`{"s":"x"}`)); err != nil {
		t.Fatalf("a different schema got the first one's verdict: %v", err)
	}
}

func TestValidateReportsABrokenSharedSchemaEveryTime(t *testing.T) {
	for range 2 {
		err := Validate(plainTool{`{"type": 5}`}, json.RawMessage(`{}`))
		if err == nil || !strings.Contains(err.Error(), "tool plain has a broken input schema") {
			t.Fatalf("Validate = %v", err)
		}
	}
}

// BenchmarkValidateToolWithoutSchemaCache is what the task tool costs per
// sub-agent it starts.
func BenchmarkValidateToolWithoutSchemaCache(b *testing.B) {
	b.ReportAllocs()
	in := json.RawMessage(`{"n":2}`)
	for b.Loop() {
		if err := Validate(plainTool{plainSchema}, in); err != nil {
			b.Fatal(err)
		}
	}
}
