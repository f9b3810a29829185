package loopback

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// checkShape walks a decoded scenario against the Go type it will be
// decoded into and reports the first unknown field or wrongly shaped value
// with its full path (e.g. `rules[0] "greet".match.lst_user_contains`), which
// encoding/json's own errors do not give.
func checkShape(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want a mapping, got %s", orRoot(path), kindOf(v))
		}
		fields := jsonFields(t)
		for _, key := range slices.Sorted(maps.Keys(m)) {
			val := m[key]
			f, ok := fields[key]
			if !ok {
				return fmt.Errorf("%s: unknown field %q (known: %s)", orRoot(path), key, knownFields(fields))
			}
			if err := checkShape(val, f.Type, joinPath(path, key)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want a list, got %s", orRoot(path), kindOf(v))
		}
		for i, e := range list {
			if err := checkShape(e, t.Elem(), elemPath(path, i, e)); err != nil {
				return err
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want a mapping, got %s", orRoot(path), kindOf(v))
		}
		for _, key := range slices.Sorted(maps.Keys(m)) {
			if err := checkShape(m[key], t.Elem(), fmt.Sprintf("%s[%q]", path, key)); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: want a string, got %s", orRoot(path), kindOf(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: want true or false, got %s", orRoot(path), kindOf(v))
		}
	case reflect.Int:
		if !isInteger(v) {
			return fmt.Errorf("%s: want a whole number, got %s", orRoot(path), kindOf(v))
		}
	}
	return nil
}

// elemPath names a list element, adding its name when it has one so that
// errors point at the rule a person wrote.
func elemPath(path string, i int, e any) string {
	p := fmt.Sprintf("%s[%d]", path, i)
	if m, ok := e.(map[string]any); ok {
		if name, ok := m["name"].(string); ok && name != "" {
			p += fmt.Sprintf(" %q", name)
		}
	}
	return p
}

func jsonFields(t reflect.Type) map[string]reflect.StructField {
	fields := make(map[string]reflect.StructField, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		fields[name] = f
	}
	return fields
}

func knownFields(fields map[string]reflect.StructField) string {
	return strings.Join(slices.Sorted(maps.Keys(fields)), ", ")
}

func isInteger(v any) bool {
	switch n := v.(type) {
	case int, int64, uint64:
		return true
	case float64:
		return n == float64(int64(n))
	case json.Number:
		_, err := n.Int64()
		return err == nil
	}
	return false
}

func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("the string %q", v)
	case bool:
		return fmt.Sprintf("%v", v)
	default:
		return fmt.Sprintf("%v", v)
	}
}
