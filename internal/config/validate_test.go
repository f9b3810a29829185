package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadFileSaysWhatWasExpectedInWords(t *testing.T) {
	cases := []struct {
		name    string
		content string
		want    string // after "config PATH: "
	}{
		{"an array", `[]`, `expected a JSON object like {"provider": "anthropic"}, found an array`},
		{"a string", `"anthropic"`, `expected a JSON object like {"provider": "anthropic"}, found a string`},
		{"a number", `5`, `expected a JSON object like {"provider": "anthropic"}, found a number`},
		{"null", `null`, `expected a JSON object like {"provider": "anthropic"}, found null`},
		{"word for a number", `{"max_turns": "ten"}`, `max_turns: expected a number, found a string`},
		{"fraction for a whole number", `{"max_subagents": 2.5}`, `max_subagents: expected a whole number, found 2.5`},
		{"string for a list", `{"allowed_tools": "read"}`, `allowed_tools: expected a list of strings like ["read", "grep"], found a string`},
		{"number in a list", `{"disallowed_tools": ["bash", 3]}`, `disallowed_tools: expected a list of strings like ["read", "grep"], found a number`},
		{"number for a string", `{"model": 4}`, `model: expected a string, found a number`},
		{"list for an object", `{"retry": [1]}`, `retry: expected an object like {"max_attempts": 5}, found an array`},
		{"nested field", `{"retry": {"max_attempts": true}}`, `retry.max_attempts: expected a number, found true or false`},
		{"typo names the field and the likely one", `{"provider": "anthropic", "modle": "x"}`, `unknown field "modle" (did you mean "model"?)`},
		{"unknown nested field", `{"retry": {"attempts": 3}}`, `unknown field "retry.attempts" (did you mean "retry.max_attempts"?)`},
		{"unknown field far from any", `{"colour": "blue"}`, `unknown field "colour"; known fields: provider, model, base_url`},
		{"trailing comma", "{\n\"provider\": \"anthropic\",\n}", "line 3"},
		{"two objects", `{} {}`, `unexpected content after the JSON object`},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "c"+string(rune('a'+i))+".json")
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadFile(p, false)
			if err == nil {
				t.Fatalf("no error for %s", c.content)
			}
			if got, want := err.Error(), "config "+p+": "+c.want; !strings.HasPrefix(got, want) {
				t.Errorf("err = %q\nwant   %q", got, want)
			}
		})
	}
}

func TestLimitsBelowOneAreErrorsNamingTheField(t *testing.T) {
	cases := []struct {
		content string
		want    string
	}{
		{`{"max_subagents": 0}`, "config max_subagents: must be at least 1, got 0"},
		{`{"max_turns": -3}`, "config max_turns: must be at least 1, got -3"},
		{`{"max_teammates": 0}`, "config max_teammates: must be at least 1, got 0"},
		{`{"max_remote_tasks": -2}`, "config max_remote_tasks: must be 0 (no cap) or more, got -2"},
		{`{"retry": {"max_attempts": 0}}`, "config retry.max_attempts: must be at least 1, got 0"},
		{`{"retry": {"base_delay_ms": -1}}`, "config retry.base_delay_ms: must be at least 1, got -1"},
		{`{"retry": {"max_delay_ms": 0}}`, "config retry.max_delay_ms: must be at least 1, got 0"},
		{`{"retry": {"max_total_seconds": 0}}`, "config retry.max_total_seconds: must be more than 0, got 0"},
		{`{"retry": {"base_delay_ms": 5000, "max_delay_ms": 100}}`, "config retry.max_delay_ms: must be at least base_delay_ms (5000), got 100"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.content, func(t *testing.T) {
			p := filepath.Join(dir, "config.json")
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadFile(p, false)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("err = %v, want %q naming %s", err, c.want, p)
			}
		})
	}
}

func TestValidFilesLoad(t *testing.T) {
	cases := map[string]File{
		``:                                      {},
		"  \n":                                  {},
		`{}`:                                    {},
		`{"max_subagents": 1, "max_turns": 50}`: {MaxSubagents: 1, MaxTurns: 50},
		`{"max_remote_tasks": 0}`:               {},
		`{"max_remote_tasks": 8}`:               {MaxRemoteTasks: 8},
	}
	dir := t.TempDir()
	for content, want := range cases {
		p := filepath.Join(dir, "config.json")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadFile(p, false)
		if err != nil || got.MaxSubagents != want.MaxSubagents || got.MaxTurns != want.MaxTurns || got.MaxRemoteTasks != want.MaxRemoteTasks {
			t.Errorf("%q: got %+v, %v; want %+v", content, got, err, want)
		}
	}
}
