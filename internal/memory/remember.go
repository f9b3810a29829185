package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Remember adds line as a bullet to the project's memory file in root, as
// the chat's # does: AGENTS.md, or CLAUDE.md when only that one exists;
// AGENTS.md is made when neither does. It returns the file written.
func Remember(root, line string) (string, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return "", errors.New("nothing to remember")
	}
	file := filepath.Join(root, "AGENTS.md")
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(root, "CLAUDE.md")); err == nil {
			file = filepath.Join(root, "CLAUDE.md")
		}
	}
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("reading %s: %w", file, err)
	}
	var b strings.Builder
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("- " + strings.ReplaceAll(line, "\n", " ") + "\n")
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return "", fmt.Errorf("adding to %s: %w", file, err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return "", fmt.Errorf("adding to %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("adding to %s: %w", file, err)
	}
	return file, nil
}
