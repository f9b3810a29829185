package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// InputError says what is wrong with a tool call's input, in words the
// model can act on.
type InputError struct {
	Tool string
	// Field is the top-level input field at fault; empty when the input as
	// a whole is wrong.
	Field   string
	Problem string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("invalid input for tool %s: %s", e.Tool, e.Problem)
}

// InputChecker is implemented by tools that check their input beyond the
// top level (the items of a list) with clearer words than the schema
// validator's; Validate calls it before the schema's own checks.
type InputChecker interface {
	CheckInput(input json.RawMessage) error
}

// SchemaResolver is implemented by tools that cache their resolved schema;
// Validate uses it so a schema is parsed once per tool value, not per call.
// Embed a SchemaCache to get it.
type SchemaResolver interface {
	ResolvedSchema(schema json.RawMessage) (*jsonschema.Resolved, error)
}

// SchemaCache resolves a tool's schema on first use and keeps it. Embed it
// in a tool struct used by pointer; the zero value is ready.
type SchemaCache struct {
	once sync.Once
	rs   *jsonschema.Resolved
	err  error
}

// ResolvedSchema returns schema resolved, resolving it on the first call
// only; later calls return the first result whatever they pass.
func (c *SchemaCache) ResolvedSchema(schema json.RawMessage) (*jsonschema.Resolved, error) {
	c.once.Do(func() { c.rs, c.err = resolveSchema(schema) })
	return c.rs, c.err
}

func resolveSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("parsing schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolving schema: %w", err)
	}
	return rs, nil
}

// Validate checks input against t's JSON Schema before t runs. Empty input
// counts as {} (some APIs send nothing for a call without arguments). The
// common mistakes (not an object, unknown or missing fields, wrong types,
// values out of range or not among the allowed ones) get messages naming
// the field; anything else the schema forbids is reported by the schema
// validator, still naming the field.
func Validate(t Tool, input json.RawMessage) error {
	name := t.Name()
	var rs *jsonschema.Resolved
	var err error
	if r, ok := t.(SchemaResolver); ok {
		rs, err = r.ResolvedSchema(t.Schema())
	} else {
		rs, err = resolvedSchemas.resolve(t.Schema())
	}
	if err != nil {
		return fmt.Errorf("tool %s has a broken input schema: %w", name, err)
	}
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return &InputError{Tool: name, Problem: fmt.Sprintf("input is not valid JSON: %v", err)}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return &InputError{Tool: name, Problem: fmt.Sprintf("input is not a JSON object (got %s)", describe(v))}
	}
	if err := checkObject(name, rs.Schema(), obj); err != nil {
		return err
	}
	if c, ok := t.(InputChecker); ok {
		if err := c.CheckInput(input); err != nil {
			return err
		}
	}
	if err := rs.Validate(v); err != nil {
		field, problem := explainSchemaError(err)
		if field != "" {
			problem = fmt.Sprintf("`%s`: %s", field, problem)
		}
		return &InputError{Tool: name, Field: field, Problem: problem}
	}
	return nil
}

// checkObject gives readable errors for the top level of a flat object
// schema, which is what tool inputs are.
func checkObject(tool string, s *jsonschema.Schema, obj map[string]any) error {
	fail := func(field, format string, args ...any) error {
		return &InputError{Tool: tool, Field: field, Problem: fmt.Sprintf(format, args...)}
	}
	known := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		known = append(known, k)
	}
	sort.Strings(known)
	if closed(s) {
		var unknown []string
		for k := range obj {
			if _, ok := s.Properties[k]; !ok {
				unknown = append(unknown, k)
			}
		}
		sort.Strings(unknown)
		if len(unknown) > 0 {
			what := "field"
			if len(unknown) > 1 {
				what = "fields"
			}
			return fail(unknown[0], "unknown %s %s (known fields: %s)", what, quoteFields(unknown), strings.Join(known, ", "))
		}
	}
	for _, r := range s.Required {
		if _, ok := obj[r]; !ok {
			return fail(r, "missing required field `%s`", r)
		}
	}
	for _, k := range known {
		val, ok := obj[k]
		if !ok {
			continue
		}
		ps := s.Properties[k]
		if ps == nil {
			continue
		}
		if ps.Type != "" && !hasType(val, ps.Type) {
			return fail(k, "`%s` must be %s, got %s", k, article(ps.Type), describe(val))
		}
		if len(ps.Enum) > 0 && !slices.ContainsFunc(ps.Enum, func(e any) bool { return e == val }) {
			opts := make([]string, len(ps.Enum))
			for i, e := range ps.Enum {
				opts[i] = fmt.Sprintf("%v", e)
			}
			return fail(k, "`%s` must be one of %s, got %s", k, strings.Join(opts, ", "), describe(val))
		}
		if n, ok := val.(float64); ok {
			if ps.Minimum != nil && n < *ps.Minimum {
				return fail(k, "`%s` must be at least %v, got %v", k, *ps.Minimum, n)
			}
			if ps.Maximum != nil && n > *ps.Maximum {
				return fail(k, "`%s` must be at most %v, got %v", k, *ps.Maximum, n)
			}
		}
	}
	return nil
}

// closed reports whether the schema forbids properties it does not list
// (additionalProperties: false, which unmarshals as {"not": {}}).
func closed(s *jsonschema.Schema) bool {
	ap := s.AdditionalProperties
	if ap == nil || ap.Not == nil {
		return false
	}
	return reflect.ValueOf(*ap.Not).IsZero()
}

func quoteFields(fs []string) string {
	q := make([]string, len(fs))
	for i, f := range fs {
		q[i] = "`" + f + "`"
	}
	return strings.Join(q, ", ")
}

func hasType(v any, typ string) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		n, ok := v.(float64)
		return ok && n == math.Trunc(n) && !math.IsInf(n, 0)
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "null":
		return v == nil
	}
	return true
}

func article(typ string) string {
	switch typ {
	case "integer", "object", "array":
		return "an " + typ
	case "null":
		return "null"
	}
	return "a " + typ
}

// describe names a JSON value's type and shows a short form of it.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string " + shorten(fmt.Sprintf("%q", x), 40)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case float64:
		return fmt.Sprintf("number %v", x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

var schemaPathRE = lazy.Regexp{Expr: `^validating ([^:]*): `}

// explainSchemaError peels jsonschema-go's "validating <path>: " prefixes
// off err, returning the first property named on the way and the rest.
func explainSchemaError(err error) (field, problem string) {
	msg := err.Error()
	for {
		m := schemaPathRE.Get().FindStringSubmatch(msg)
		if m == nil {
			break
		}
		if field == "" {
			if rest, ok := strings.CutPrefix(m[1], "/properties/"); ok {
				field, _, _ = strings.Cut(rest, "/")
			}
		}
		msg = msg[len(m[0]):]
	}
	return field, msg
}

// Execute validates call's input, runs t and turns every failure into an
// error result the model can read: invalid input, a Run error and a panic
// in Run (reported naming the tool) never escape as a crash.
func Execute(ctx context.Context, t Tool, call Call) (res Result) {
	if err := Validate(t, call.Input); err != nil {
		return Result{Content: err.Error(), IsError: true}
	}
	defer func() {
		if r := recover(); r != nil {
			res = Result{Content: fmt.Sprintf("tool %s crashed: %v", t.Name(), r), IsError: true}
		}
	}()
	out, err := t.Run(ctx, call)
	if err != nil {
		return Result{Content: err.Error(), IsError: true}
	}
	return out
}
