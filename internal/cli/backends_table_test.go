package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/backend/claudecode"
	"github.com/atomic-agent/atomic/internal/backend/codex"
	"github.com/atomic-agent/atomic/internal/backend/copilot"
	"github.com/atomic-agent/atomic/internal/backend/native"
	"github.com/atomic-agent/atomic/internal/backend/opencode"
	"github.com/atomic-agent/atomic/internal/subagent"
)

// repoRoot is the module's root, two folders above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// source is the non-test Go code of the packages under dirs (relative to
// internal/), comments dropped.
func source(t *testing.T, dirs ...string) string {
	t.Helper()
	var b strings.Builder
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(repoRoot(t), "internal", d, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in internal/%s (%v)", d, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(comment.ReplaceAllString(string(raw), ""))
		}
	}
	return b.String()
}

var comment = regexp.MustCompile(`(?m)^\s*//.*$`)

// adapter is where each backend's behaviour is coded: the packages that
// run it, and its session's type.
var adapter = map[string]struct {
	dirs    []string
	session reflect.Type
}{
	backend.Native:     {[]string{"backend/native", "subagent", "tools", "runtime"}, reflect.TypeOf((*native.Session)(nil))},
	backend.ClaudeCode: {[]string{"backend/claudecode"}, reflect.TypeOf((*claudecode.Session)(nil))},
	backend.Codex:      {[]string{"backend/codex"}, reflect.TypeOf((*codex.Session)(nil))},
	backend.OpenCode:   {[]string{"backend/opencode"}, reflect.TypeOf((*opencode.Session)(nil))},
	backend.Copilot:    {[]string{"backend/copilot"}, reflect.TypeOf((*copilot.Session)(nil))},
}

// coded is, per capability, the code an adapter that has it must contain
// (and one that has it not must not).
var coded = []struct {
	name string
	has  func(backend.Info) bool
	code *regexp.Regexp
}{
	{"sub-agents join the tree", func(i backend.Info) bool { return i.Subagents }, regexp.MustCompile(`event\.SubagentStart\b`)},
	{"background sub-agents", func(i backend.Info) bool { return i.Background },
		regexp.MustCompile(`(?s)SubagentStartData\{[^}]*Background:`)},
	{"approvals through the gate", func(i backend.Info) bool { return i.Approvals },
		regexp.MustCompile(`backend\.Decide\(|Gate\.Ask\(`)},
	{"usage per agent", func(i backend.Info) bool { return i.Usage }, regexp.MustCompile(`event\.UsageUpdate\b`)},
	{"plan updates", func(i backend.Info) bool { return i.Plan }, regexp.MustCompile(`event\.PlanUpdate\b`)},
	{"resume", func(i backend.Info) bool { return i.Resume }, regexp.MustCompile(`cfg\.ResumeCLI\b|\bResumable\{`)},
}

func TestEachCapabilityTheBackendsTableClaimsIsInItsAdaptersCodeAndNoneItDeniesIs(t *testing.T) {
	imageRunner := reflect.TypeOf((*backend.ImageRunner)(nil)).Elem()
	canceller := reflect.TypeOf((*backend.AgentCanceller)(nil)).Elem()
	for _, b := range backend.Known() {
		a, ok := adapter[b.Name]
		if !ok {
			t.Errorf("%s: the test knows no adapter of it", b.Name)
			continue
		}
		if got := a.session.Implements(imageRunner); got != b.Images {
			t.Errorf("%s: images %v, but its session is an ImageRunner: %v", b.Name, b.Images, got)
		}
		cancels := a.session.Implements(canceller)
		if b.Name == backend.Native {
			// The native loop's sub-agents are the manager's, which stops one alone.
			_, cancels = reflect.TypeOf((*subagent.Manager)(nil)).MethodByName("Cancel")
		}
		if cancels != b.CancelAgent {
			t.Errorf("%s: cancel one sub-agent %v, but it can: %v", b.Name, b.CancelAgent, cancels)
		}
		src := source(t, a.dirs...)
		for _, c := range coded {
			if got := c.code.MatchString(src); got != c.has(b) {
				t.Errorf("%s: %s %v in the table, but its code (%s) has %s: %v", b.Name, c.name, c.has(b), strings.Join(a.dirs, ", "), c.code, got)
			}
		}
	}
}

func TestEveryExternalBackendOfTheTableOpensAndNoOtherNameDoes(t *testing.T) {
	var table, opened []string
	for _, b := range backend.Known() {
		if b.Binary != "" {
			table = append(table, b.Name)
		}
		if b.Name != backend.Native && (b.Binary == "" || b.Package == "" || (b.API != "anthropic" && b.API != "openai") || b.Drive == "") {
			t.Errorf("%s: an external backend needs its binary, npm package, API and drive: %+v", b.Name, b)
		}
	}
	for name := range openers {
		opened = append(opened, name)
	}
	sort.Strings(table)
	sort.Strings(opened)
	if !reflect.DeepEqual(table, opened) {
		t.Fatalf("external backends of the table %v, openers %v", table, opened)
	}
	if _, err := openBackend("native", backend.Config{}, true); err == nil {
		t.Error("native opened as an external backend")
	}
	_, err := openBackend("aider", backend.Config{}, true)
	if err == nil || !strings.Contains(err.Error(), "native, claude-code, codex, opencode or copilot") {
		t.Errorf("unknown backend: %v", err)
	}
}

// backendName matches a backend's name in code: a constant of package
// backend or the string itself.
var backendName = regexp.MustCompile(`backend\.(ClaudeCode|Codex|OpenCode|Copilot)\b|"(claude-code|codex|opencode|copilot)"`)

// The list of backends lives in one place, internal/backend/known.go:
// no other code names two backends in one statement (a switch case, a
// list) to tell them apart from the rest.
func TestNoCodeButTheBackendsTableListsTheBackends(t *testing.T) {
	root := filepath.Join(repoRoot(t), "internal")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if rel == filepath.Join("backend", "known.go") || strings.HasPrefix(rel, "testkit") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(comment.ReplaceAllString(string(raw), ""), "\n") {
			names := map[string]bool{}
			for _, m := range backendName.FindAllStringSubmatch(line, -1) {
				names[m[1]+m[2]] = true
			}
			if len(names) > 1 {
				t.Errorf("internal/%s:%d lists backends (use backend.Known, Lookup or External): %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
