package commands

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// Runner does what a command file's body asks before the prompt is sent:
// Shell runs a !`command` through the permission gate and the sandbox, as
// a bash tool call of the lead's (an error, a denial included, stops the
// prompt); File reads an @path inside the workspace or its allowed
// folders (found is false when nothing is at path: the text stays as
// written, "@alice" is not a file).
type Runner interface {
	Shell(ctx context.Context, command string) (output string, err error)
	File(path string) (content string, found bool, err error)
}

// shellRef is Claude Code's !`command`: at the start of a line or after
// white space, so "a!`b`" in prose is left alone.
var shellRef = lazy.Regexp{Expr: "(^|\\s)!`([^`\\n]+)`"}

// HasRefs reports whether the prompt runs commands or reads files.
func (c Command) HasRefs() bool {
	return shellRef.Get().MatchString(c.Prompt) || len(fileRefs(c.Prompt)) > 0
}

// Render is Expand, then each !`command` replaced by its output and the
// content of each @path (once each) added after the prompt, as Claude
// Code does; the commands run in order, before the prompt is sent.
func (c Command) Render(ctx context.Context, args string, r Runner) (string, error) {
	p := c.Expand(args)
	var err error
	p = shellRef.Get().ReplaceAllStringFunc(p, func(m string) string {
		if err != nil {
			return m
		}
		sub := shellRef.Get().FindStringSubmatch(m)
		out, e := r.Shell(ctx, sub[2])
		if e != nil {
			err = fmt.Errorf("/%s: !`%s`: %w", c.Name, sub[2], e)
			return m
		}
		return sub[1] + strings.TrimRight(out, "\n")
	})
	if err != nil {
		return "", err
	}
	var files strings.Builder
	seen := map[string]bool{}
	for _, path := range fileRefs(p) {
		if seen[path] {
			continue
		}
		seen[path] = true
		content, found, e := r.File(path)
		if e != nil {
			return "", fmt.Errorf("/%s: @%s: %w", c.Name, path, e)
		}
		if found {
			fmt.Fprintf(&files, "\n\n<file path=%q>\n%s\n</file>", path, strings.TrimRight(content, "\n"))
		}
	}
	return p + files.String(), nil
}

// fileRefs are the @path tokens of p: an @ at the start or after white
// space, up to white space, without trailing punctuation.
func fileRefs(p string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		if p[i] != '@' || i > 0 && !unicode.IsSpace(rune(p[i-1])) {
			continue
		}
		j := i + 1
		for j < len(p) && !unicode.IsSpace(rune(p[j])) {
			j++
		}
		if path := strings.TrimRight(p[i+1:j], ".,;:!?)\"'`"); path != "" {
			out = append(out, path)
		}
		i = j
	}
	return out
}

// Resolve finds the command "/name args" typed by the user names; ok is
// false as for Expand.
func (s *Set) Resolve(text string) (c Command, args string, ok bool) {
	name, args := strings.TrimSpace(text), ""
	if i := strings.IndexFunc(name, unicode.IsSpace); i >= 0 {
		name, args = name[:i], name[i:]
	}
	if !strings.HasPrefix(name, "/") {
		return Command{}, "", false
	}
	c, ok = s.Lookup(name[1:])
	return c, strings.TrimSpace(args), ok
}
