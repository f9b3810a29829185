// Package memory loads project memory: the AGENTS.md and CLAUDE.md files
// that tell every agent of a run how this project and this user work. It
// reads them in the places Claude Code does, with its @path imports, so a
// project set up for Claude Code behaves the same under Atomic. A file that
// cannot be read is reported as "path: why" and skipped; the rest loads.
package memory

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/atomic-agent/atomic/internal/dotdirs"
)

// MaxFileSize caps what is read of one file; a longer one is cut with a
// warning, so one runaway file cannot fill the context window.
const MaxFileSize = 256 << 10

// MaxDepth is how many import hops are followed, as in Claude Code.
const MaxDepth = 5

// Kind says where a file comes from: it heads its block in the prompt.
type Kind string

const (
	Project  Kind = "project instructions"
	Local    Kind = "private project instructions, not checked in"
	User     Kind = "the user's instructions for all projects"
	Rule     Kind = "project rules"
	UserRule Kind = "the user's rules for all projects"
	Managed  Kind = "managed policy for every user of this machine"
	Import   Kind = "imported"
)

// File is one loaded memory file.
type File struct {
	Path    string
	Kind    Kind
	Content string
	// ImportedBy is the file whose @path brought this one in, and Line the
	// line of that @path ("" and 0 for a file found in its own place).
	ImportedBy string
	Line       int
	// Paths are the globs a rules file (.claude/rules) says it is for,
	// from its front matter "paths"; empty for all files.
	Paths string
}

// Lines is how many lines the file has.
func (f File) Lines() int {
	if f.Content == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(f.Content, "\n"), "\n") + 1
}

// Problem is a file, or an import, that was skipped or cut: "path: why",
// or "path:line: why" for an import, naming the importing file.
type Problem struct {
	Path string
	Line int
	Err  error
}

func (p *Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", p.Path, p.Line, p.Err)
	}
	return fmt.Sprintf("%s: %v", p.Path, p.Err)
}

func (p *Problem) Unwrap() error { return p.Err }

// Memory is what was loaded, in prompt order, and what was not.
type Memory struct {
	Files    []File
	Problems []error
}

// Places says where to look. Dir is the working directory; Home the
// user's home (for ~/.claude/CLAUDE.md and @~/ imports); ConfigDir the
// user's Atomic config folder (config.UserDir), holding AGENTS.md;
// Managed Claude Code's machine-wide file (ManagedPath), "" for none.
type Places struct {
	Dir       string
	Home      string
	ConfigDir string
	Managed   string
	// CodexHome is Codex's folder ($CODEX_HOME); "" is ~/.codex.
	CodexHome string
}

// ManagedPath is where Claude Code reads its managed policy memory on
// goos.
func ManagedPath(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/CLAUDE.md"
	case "windows":
		return `C:\Program Files\ClaudeCode\CLAUDE.md`
	}
	return "/etc/claude-code/CLAUDE.md"
}

// Load reads the memory files, nearest first: for each folder from the
// working directory up to the repository root (the folder holding .git;
// without one, only the working directory) its AGENTS.md, CLAUDE.md,
// .claude/CLAUDE.md, .claude/rules/**/*.md and CLAUDE.local.md; then
// ~/.claude/CLAUDE.md, ~/.claude/rules/**/*.md, Codex's ~/.codex/AGENTS.md,
// ConfigDir/AGENTS.md and the managed policy file. As Codex reads them, an
// AGENTS.override.md is read instead of the AGENTS.md beside it. Each file
// is followed by the files it imports. Missing files are fine.
func Load(p Places) *Memory {
	l := &loader{home: p.Home, seen: map[string]bool{}}
	for _, dir := range dotdirs.Project(p.Dir) {
		l.top(agentsFile(dir), Project)
		l.top(filepath.Join(dir, "CLAUDE.md"), Project)
		l.top(filepath.Join(dir, ".claude", "CLAUDE.md"), Project)
		l.rules(filepath.Join(dir, ".claude", "rules"), Rule)
		l.top(filepath.Join(dir, "CLAUDE.local.md"), Local)
	}
	if p.Home != "" {
		l.top(filepath.Join(p.Home, ".claude", "CLAUDE.md"), User)
		l.rules(filepath.Join(p.Home, ".claude", "rules"), UserRule)
	}
	codex := p.CodexHome
	if codex == "" && p.Home != "" {
		codex = filepath.Join(p.Home, ".codex")
	}
	if codex != "" {
		l.top(agentsFile(codex), User)
	}
	if p.ConfigDir != "" {
		l.top(filepath.Join(p.ConfigDir, "AGENTS.md"), User)
	}
	if p.Managed != "" {
		l.top(p.Managed, Managed)
	}
	return &l.mem
}

// agentsFile is dir's AGENTS.override.md when there is one (Codex reads
// it instead), else its AGENTS.md.
func agentsFile(dir string) string {
	if o := filepath.Join(dir, "AGENTS.override.md"); exists(o) {
		return o
	}
	return filepath.Join(dir, "AGENTS.md")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

type loader struct {
	home string
	mem  Memory
	seen map[string]bool // by resolved path: each file is loaded once
}

func (l *loader) problem(path string, line int, err error) {
	l.mem.Problems = append(l.mem.Problems, &Problem{Path: path, Line: line, Err: err})
}

// top loads a file found in its own place; a missing one is not a problem.
func (l *loader) top(path string, kind Kind) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return
	}
	l.load(path, kind, "", 0, []string{})
}

// load reads path and then its imports; chain is the import path that led
// here (the importers, outermost first).
func (l *loader) load(path string, kind Kind, importer string, line int, chain []string) {
	key := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		key = r
	}
	for _, c := range chain {
		if c == key {
			l.problem(importer, line, fmt.Errorf("import cycle: %s imports %s again", importer, path))
			return
		}
	}
	if l.seen[key] {
		return
	}
	text, err := l.read(path)
	if err != nil {
		if importer != "" {
			l.problem(importer, line, fmt.Errorf("import @%s: %w", path, err))
		} else {
			l.problem(path, 0, err)
		}
		return
	}
	var globs string
	if kind == Rule || kind == UserRule {
		if text, globs, err = ruleFrontMatter(text); err != nil {
			l.problem(path, 0, err)
			return
		}
	}
	l.seen[key] = true
	l.mem.Files = append(l.mem.Files, File{Path: path, Kind: kind, Content: text, ImportedBy: importer, Line: line, Paths: globs})
	chain = append(chain, key)
	for _, im := range imports(text) {
		target := l.resolve(path, im.path)
		if len(chain) > MaxDepth {
			l.problem(path, im.line, fmt.Errorf("import @%s not followed: imports are followed at most %d levels deep", im.path, MaxDepth))
			continue
		}
		l.load(target, Import, path, im.line, chain)
	}
}

// read returns a file's text: valid UTF-8, cut at MaxFileSize.
func (l *loader) read(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", errors.New("no such file")
		}
		return "", err
	}
	if fi.IsDir() {
		return "", errors.New("is a directory, not a file")
	}
	if !fi.Mode().IsRegular() {
		return "", errors.New("not a regular file") // a pipe or device would block or never end
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return "", err
	}
	cut := len(data) > MaxFileSize
	if cut {
		data = data[:MaxFileSize]
		if i := lastRuneStart(data); !utf8.FullRune(data[i:]) {
			data = data[:i] // do not split the last character
		}
	}
	if !utf8.Valid(data) {
		return "", errors.New("not valid UTF-8 text")
	}
	text := strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\ufeff")
	if cut {
		l.problem(path, 0, fmt.Errorf("longer than %d KiB: only the first %d KiB were loaded", MaxFileSize>>10, MaxFileSize>>10))
	}
	return text, nil
}

func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return len(b)
}

// resolve turns an import as written into a path: ~/ is the home, an
// absolute path stays, anything else is relative to the importing file.
func (l *loader) resolve(importer, p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		return filepath.Join(l.home, strings.TrimPrefix(p, "~"))
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(filepath.Dir(importer), p)
}
