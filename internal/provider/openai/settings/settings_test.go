package settings

import "testing"

func TestNormaliseBaseURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", DefaultBaseURL},
		{"http://localhost:11434", "http://localhost:11434/v1"},
		{"http://localhost:11434/", "http://localhost:11434/v1"},
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"http://localhost:11434/v1/", "http://localhost:11434/v1"},
		{"https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1"},
		{"https://generativelanguage.googleapis.com/v1beta/openai/", "https://generativelanguage.googleapis.com/v1beta/openai"},
	}
	for _, c := range cases {
		got, err := NormaliseBaseURL(c.in)
		if err != nil || got != c.want {
			t.Errorf("NormaliseBaseURL(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"localhost:11434", "ftp://host/v1", "http://"} {
		if _, err := NormaliseBaseURL(bad); err == nil {
			t.Errorf("NormaliseBaseURL(%q) accepted a URL that is not http(s)", bad)
		}
	}
}
