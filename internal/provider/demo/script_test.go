package demo

import "testing"

func TestTheDemoReadsTheProjectsOwnReadmeNotATestFixtures(t *testing.T) {
	tests := []struct {
		name    string
		results []string
		want    string
	}{
		{"shallowest README wins", []string{"internal/backend/codex/testdata/README.md\ninternal/x/README.md\nREADME.md\n"}, "README.md"},
		{"a fixture's README only after any other file", []string{"testdata/README.md\nfixtures/a/README.md\nmain.go\n"}, "main.go"},
		{"Markdown before code", []string{"cmd/main.go\ndocs/guide.md\n"}, "docs/guide.md"},
		{"a fixture when nothing else is listed", []string{"testdata/README.md\n"}, "testdata/README.md"},
		{"ties keep the listed order", []string{"b.go\na.go\n"}, "b.go"},
		{"nothing listed", []string{"No files found matching \"*\".\n"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pickFile(tt.results); got != tt.want {
				t.Fatalf("pickFile(%q) = %q, want %q", tt.results, got, tt.want)
			}
		})
	}
}
