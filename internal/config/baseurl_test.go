package config

import "testing"

func TestBaseURLForGivesEachAPIOneFormWhateverTheUserTyped(t *testing.T) {
	for _, c := range []struct{ api, in, want string }{
		{"anthropic", "http://h:1", "http://h:1"},
		{"anthropic", "http://h:1/v1", "http://h:1"},
		{"anthropic", "http://h:1/v1/", "http://h:1"},
		{"anthropic", "https://proxy/anthropic/v1", "https://proxy/anthropic"},
		{"openai", "http://h:1", "http://h:1/v1"},
		{"openai", "http://h:1/", "http://h:1/v1"},
		{"openai", "http://h:1/v1/", "http://h:1/v1"},
		{"openai", "https://proxy/openai/v1", "https://proxy/openai/v1"},
		{"openai", "", ""},
		{"anthropic", "", ""},
	} {
		got, err := BaseURLFor(c.api, c.in)
		if err != nil || got != c.want {
			t.Errorf("BaseURLFor(%q, %q) = %q, %v; want %q", c.api, c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ api, in string }{{"openai", "ftp://h"}, {"anthropic", "h:1/v1"}, {"gemini", "http://h"}} {
		if got, err := BaseURLFor(c.api, c.in); err == nil {
			t.Errorf("BaseURLFor(%q, %q) = %q, want an error", c.api, c.in, got)
		}
	}
}
