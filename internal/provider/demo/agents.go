package demo

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/provider"
)

// step is one tool call of a scripted agent: the pause before it (while
// the previous tool stays current), a line of text, and the call, chosen
// from what the agent has seen so far.
type step struct {
	think time.Duration
	say   string
	next  func(seen []provider.Message) (tool string, in map[string]any)
}

func fixed(tool string, in map[string]any) func([]provider.Message) (string, map[string]any) {
	return func([]provider.Message) (string, map[string]any) { return tool, in }
}

// subagent runs a sub-agent's script, chosen by its task prompt; after its
// last step it reports what its tools returned. The background audit holds
// its report until the lead's turn has answered, then a little longer, so
// that its completion wakes an idle lead.
func (p *Provider) subagent(req provider.Request) reply {
	task := ""
	if i, text := lastPrompt(req.Messages); i >= 0 {
		task = text
	}
	steps := subagentSteps(task)
	if r := toolRounds(req.Messages); r < len(steps) {
		return p.stepReply(steps[r], req.Messages)
	}
	r := reply{think: 900 * time.Millisecond, text: findings(req.Messages)}
	if token := runToken.Get().FindString(task); token != "" {
		r.wait = p.leadSignal(token).ch
		r.think = 2 * time.Second
		r.after = func() { p.forget(token) }
	}
	return r
}

func (p *Provider) stepReply(s step, seen []provider.Message) reply {
	tool, in := s.next(seen)
	return reply{think: s.think, text: s.say, calls: []provider.ToolCall{p.call(tool, in)}}
}

// subagentSteps is the script for a task prompt (one look around when the
// prompt is none of the demo's).
func subagentSteps(task string) []step {
	const s = time.Second
	switch {
	case strings.HasPrefix(task, promptLayout):
		return []step{
			{400 * time.Millisecond, "Listing the workspace.", fixed("ls", map[string]any{"path": "."})},
			{1300 * time.Millisecond, "Looking for documentation.", fixed("glob", map[string]any{"pattern": "**/*.md"})},
			{1300 * time.Millisecond, "Reading the main document.", readBest},
		}
	case strings.HasPrefix(task, promptSources):
		return []step{
			{600 * time.Millisecond, "Finding the Go files.", fixed("glob", map[string]any{"pattern": "**/*.go"})},
			{1400 * time.Millisecond, "Finding the main packages.", fixed("grep", map[string]any{"pattern": `^package main\b`, "glob": "*.go"})},
			{1400 * time.Millisecond, "Counting the tests.", fixed("grep", map[string]any{"pattern": `^func Test`, "glob": "*_test.go", "output_mode": "count"})},
		}
	case strings.HasPrefix(task, promptToolchain):
		return []step{
			{500 * time.Millisecond, "Looking for a build manifest.", fixed("glob", map[string]any{"pattern": "{go.mod,package.json,Cargo.toml,pyproject.toml,Makefile}"})},
			{1200 * time.Millisecond, "Reading the manifest.", readManifest},
			{1000 * time.Millisecond, "Asking the toolchain for its version (this needs your approval).", versionCommand},
		}
	case strings.HasPrefix(task, promptAudit):
		return []step{
			{500 * time.Millisecond, "Counting TODO and FIXME notes.", fixed("grep", map[string]any{"pattern": `TODO|FIXME`, "output_mode": "count"})},
			{1500 * time.Millisecond, "Finding the test files.", fixed("glob", map[string]any{"pattern": "**/*_test.*"})},
			{1500 * time.Millisecond, "Counting the test functions.", fixed("grep", map[string]any{"pattern": `^func (Test|Benchmark|Fuzz)`, "output_mode": "count"})},
		}
	}
	return []step{{400 * time.Millisecond, "Listing the workspace.", fixed("ls", map[string]any{"path": "."})}}
}

// readBest reads the most telling file found so far.
func readBest(seen []provider.Message) (string, map[string]any) {
	if f := pickFile(resultTexts(seen)); f != "" {
		return "read", map[string]any{"file_path": f, "limit": 30}
	}
	return "ls", map[string]any{"path": "."}
}

// manifests maps build manifests to the command that names their toolchain.
var manifests = [][2]string{
	{"go.mod", "go version"},
	{"package.json", "node --version"},
	{"Cargo.toml", "cargo --version"},
	{"pyproject.toml", "python3 --version"},
	{"Makefile", "make --version"},
}

// manifest is the first build manifest the agent found ("" if none).
func manifest(seen []provider.Message) string {
	for _, r := range resultTexts(seen) {
		for _, l := range nonEmptyLines(r) {
			for _, m := range manifests {
				if path.Base(l) == m[0] {
					return l
				}
			}
		}
	}
	return ""
}

func readManifest(seen []provider.Message) (string, map[string]any) {
	if f := manifest(seen); f != "" {
		return "read", map[string]any{"file_path": f, "limit": 20}
	}
	return "ls", map[string]any{"path": "."}
}

// versionCommand runs the found toolchain's version command, or lists the
// workspace: either way a bash call, which asks for approval.
func versionCommand(seen []provider.Message) (string, map[string]any) {
	cmd := "ls -la"
	if f := manifest(seen); f != "" {
		for _, m := range manifests {
			if path.Base(f) == m[0] {
				cmd = m[1]
			}
		}
	}
	return "bash", map[string]any{"command": cmd, "description": "Print the toolchain version"}
}

// teammate runs scout's script. What it answers is the newest text in its
// history: its assignment, or the lead's message; the steps count from
// there. Each ends with a send_message to the lead, then the turn ends
// and the teammate waits, idle.
func (p *Provider) teammate(req provider.Request) reply {
	msgs := req.Messages
	start, trigger := 0, ""
	for i := len(msgs) - 1; i >= 0 && trigger == ""; i-- {
		if msgs[i].Role != provider.RoleUser {
			continue
		}
		for _, pt := range msgs[i].Parts {
			if pt.ToolResult == nil && strings.TrimSpace(pt.Text) != "" {
				start, trigger = i, pt.Text
			}
		}
	}
	ep := msgs[start+1:]
	var steps []step
	if strings.HasPrefix(strings.TrimSpace(trigger), teamMsg) {
		steps = []step{
			{800 * time.Millisecond, "Counting the source files.", fixed("glob", map[string]any{"pattern": "**/*.{go,py,js,ts,rs,java,c,h,rb}"})},
			{1000 * time.Millisecond, "Answering the lead.", func(seen []provider.Message) (string, map[string]any) {
				return "send_message", map[string]any{"to": "lead", "content": sourceCount(resultTexts(seen))}
			}},
		}
	} else {
		steps = []step{
			{600 * time.Millisecond, "Looking for the docs.", fixed("glob", map[string]any{"pattern": "**/*.md"})},
			{1200 * time.Millisecond, "Reading the main one.", readBest},
			{1000 * time.Millisecond, "Reporting to the lead.", func(seen []provider.Message) (string, map[string]any) {
				return "send_message", map[string]any{"to": "lead", "content": strings.TrimSpace(findings(seen))}
			}},
		}
	}
	if r := toolRounds(ep); r < len(steps) {
		return p.stepReply(steps[r], ep)
	}
	return reply{think: 300 * time.Millisecond, text: "Reported to the lead; waiting for its next message."}
}

// sourceCount words how many source files a glob found and where most are.
func sourceCount(results []string) string {
	n, files := 0, []string(nil)
	for _, r := range results {
		c, f := globCount(r)
		n, files = n+c, append(files, f...)
	}
	if n == 0 {
		return "I found no source files (Go, Python, JavaScript, TypeScript, Rust, Java, C or Ruby)."
	}
	byDir := map[string]int{}
	for _, f := range files {
		top, _, nested := strings.Cut(f, "/")
		if !nested {
			top = "."
		}
		byDir[top]++
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool {
		if byDir[dirs[i]] != byDir[dirs[j]] {
			return byDir[dirs[i]] > byDir[dirs[j]]
		}
		return dirs[i] < dirs[j]
	})
	if len(files) < n {
		return fmt.Sprintf("There are %d source files; of the %d I listed, most (%d) are in %s/.", n, len(files), byDir[dirs[0]], dirs[0])
	}
	return fmt.Sprintf("There are %d source files; most (%d) are in %s/.", n, byDir[dirs[0]], dirs[0])
}
